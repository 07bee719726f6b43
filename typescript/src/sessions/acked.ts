/**
 * Acked snapshots (`docs/spec/acked.md`), both halves, generic over an {@link AckedSchema} as the
 * Rust codec's `acked` module: the client's {@link AckedDecoder} and its kind 7 {@link AckWriter},
 * the server's per-client {@link AckedEncoder} (SENT_RING frames, a base or a keyframe, events, the
 * check, RELIABLE_ABOVE), and {@link delta}, what turns one state into another. Frames, bytes,
 * checks and state hashes are bit for bit the Rust machines' (conformance's stream vectors hold
 * both to the same bytes).
 *
 * The schema says what a record is, how two differ as a change, how a change applies, a
 * record's canonical bytes and how frames are written and read. `ackwire gen --lang ts` writes
 * one for every profile of every `state` a spec declares (the reference protocol's `Reference`
 * and `PackedReference`, in `reference.ts` beside `protocol.ts`); the session halves over a
 * schema are `acked_half.ts`'s. Nothing here imports a generated module.
 *
 * A coded schema (kind 13, `docs/spec/coded.md`: {@link AckedSchema.coded}) writes each frame
 * against the records of states both sides hold, and the machines enforce its session rules as
 * the Rust codec's do: the encoder names as the older snapshot the newest frame before the base
 * that the client acknowledged, within 255 ticks (CODE-2), and the decoder drops a frame whose
 * base or older snapshot it does not hold, before reading its changes (CODE-3); both look each
 * entity's record up by id ({@link CodedBasis}), never walking the world.
 *
 * Sans-IO: ticks are arguments; nothing reads a clock or opens a socket.
 */

import type { CodedBasis, CodedBasisTicks } from "../coded.js";
import { DecodeError, EncodeError } from "../errors.js";
import { fnv1a32 } from "./fnv.js";

/**
 * An acked frame (kind 6) in schema-independent terms: the header is ACK-2's, the changes and the
 * events are the schema's.
 */
export interface AckedFrame<C, E> {
  /** The server tick this frame describes. */
  tick: number;
  /** The tick of the acknowledged frame it applies onto (0 for a keyframe). */
  baseTick: number;
  /** The newest input sequence the server has processed for this client. */
  lastSeq: number;
  /** How many of the client's inputs the server holds, ahead of execution. */
  inputBuffer: number;
  /** The frame applies onto nothing. */
  keyframe: boolean;
  /** FNV-1a of every record of the state the frame produces, every CHECK_EVERY frames. */
  check: number | undefined;
  /** The entities gone, and those whose life changed (they come again whole). */
  removed: number[];
  /** The entities whose groups differ from the base, ascending. */
  changes: C[];
  /** The serial of the first event (meaningful only when there are events). */
  firstSerial: number;
  /** The events not yet acknowledged, oldest first; the i-th has `firstSerial + i`. */
  events: E[];
}

/**
 * A frame with nothing in it (tick 0, no lists' elements), as the Rust codec's
 * `AckedFrame::empty`: what a decoder reads every frame into, and a frame's defaults. A new one
 * each call, its lists its own.
 */
export function emptyFrame<C, E>(): AckedFrame<C, E> {
  return {
    tick: 0,
    baseTick: 0,
    lastSeq: 0,
    inputBuffer: 0,
    keyframe: false,
    check: undefined,
    removed: [],
    changes: [],
    firstSerial: 0,
    events: [],
  };
}

/** A client's kind 7 content: the tick it acknowledges, a keyframe request, its inputs. */
export interface AckContent<I> {
  /** The newest frame applied (0 for none, and while a keyframe is requested). */
  ackTick: number;
  /** The client's check failed: it asks for a keyframe (AckFlags::KEYFRAME_REQUEST). */
  keyframeRequest: boolean;
  /** The sequence number of the first input (meaningful only when there are inputs). */
  firstSeq: number;
  /** The inputs, oldest first. */
  inputs: I[];
}

/**
 * A change that cannot apply onto the state a client holds (a whole entity without all its
 * groups, a pose off the grid, a removed id the base does not hold): the frame is refused and
 * counted, never applied in part. A schema's `apply` throws it.
 */
export class Inapplicable extends Error {
  /** Why, as the Rust codec words it. */
  readonly why: string;

  constructor(why: string) {
    super(why);
    this.name = "Inapplicable";
    this.why = why;
  }
}

/**
 * What the acked machines need to know of a schema (`R` a record, `C` a change, `E` an event,
 * `I` an input), as the Rust codec's `AckedSchema`. Records are never edited in place by the
 * machines: `apply` returns a new one, so a record may be shared between the states held.
 */
export interface AckedSchema<R, C, E, I> {
  /** The name its frames go by in a session (`acked`, `acked_packed`): the frame's in snake_case. */
  readonly FRAME_NAME: string;
  /** The name of the client's ack frames in a session (`ack`). */
  readonly ACK_NAME: string;
  /** Frames the server keeps per client. */
  readonly SENT_RING: number;
  /** Frame states the client keeps by tick; larger than SENT_RING. */
  readonly HELD_RING: number;
  /** Frames an unacknowledged event is sent in at most. */
  readonly EVENT_TTL: number;
  /** A check follows the header of every CHECK_EVERY-th frame. */
  readonly CHECK_EVERY: number;
  /** A frame larger than this many bytes goes on the reliable channel. */
  readonly RELIABLE_ABOVE: number;

  /**
   * The change that turns `base` into `next` in a frame of tick `tick` (`base` is `undefined`
   * when the entity comes whole), or `undefined` when nothing differs; throws an EncodeError.
   */
  diff(eid: number, base: R | undefined, next: R, tick: number): C | undefined;
  /** The entity a change is about. */
  changeEid(change: C): number;
  /** `base` (or nothing) with `change` applied in a frame of `tick`; throws {@link Inapplicable}. */
  apply(base: R | undefined, change: C, tick: number): R;
  /** Whether two records are equal. */
  sameRecord(a: R, b: R): boolean;
  /** FNV-1a 32 `hash` continued over the record's canonical bytes (what the check hashes). */
  hashRecord(record: R, hash: number): number;
  /** The tick the record's pose was measured at, if it has one. */
  measured(record: R): number | undefined;
  /** Whether the record's pose came full (the tier the client sees), if it has one. */
  poseFull(record: R): boolean | undefined;
  /** A frame's bytes; throws an EncodeError. */
  encodeFrame(frame: AckedFrame<C, E>): Uint8Array;
  /** Reads a frame into `out` (canonically); throws a DecodeError. `out` may be reused. */
  decodeFrameInto(bytes: Uint8Array, out: AckedFrame<C, E>): void;
  /** A kind 7 frame's bytes; throws an EncodeError. */
  encodeAck(ack: AckContent<I>): Uint8Array;
  /** Reads a kind 7 frame; throws a DecodeError. */
  decodeAck(bytes: Uint8Array): AckContent<I>;
  /** The server tick an input is aimed at. */
  inputTick(input: I): number;

  /**
   * Whether the schema's frames are coded (kind 13, `docs/spec/coded.md`): predicted from states
   * both sides hold, so that the machines write and read them against a {@link CodedBasis}
   * ({@link encodeFrameOn}, {@link decodeFrameOnInto}) and name an older snapshot (CODE-2,
   * CODE-3). Absent or false (kinds 6 and 12): the members below are never called.
   */
  coded?(): boolean;
  /**
   * What a coded frame's basis is looked up by, read from its prefix before anything else: its
   * tick, its base's, whether it is a keyframe and how far before the base its older snapshot is
   * (0 for none); throws a DecodeError. The {@link AckedDecoder} drops a frame whose base or older
   * snapshot it does not hold before reading its changes (CODE-3). Absent: the decoded frame's
   * header, with `older` 0 (a coded schema that names no older snapshot).
   */
  readBasis?(bytes: Uint8Array): CodedBasisTicks;
  /**
   * A frame's bytes written against `basis`, the entity records of its base and of its older
   * snapshot, `older` ticks before the base (0: none; always 0 for a keyframe, CODE-2); throws an
   * EncodeError. The {@link AckedEncoder} writes a coded schema's frames so; absent,
   * {@link encodeFrame}.
   */
  encodeFrameOn?(frame: AckedFrame<C, E>, older: number, basis: CodedBasis<R>): Uint8Array;
  /**
   * Reads a frame into `out` against `basis` (what {@link encodeFrameOn} was handed on the
   * server); throws a DecodeError. The {@link AckedDecoder} reads a coded schema's frames so;
   * absent, {@link decodeFrameInto}.
   */
  decodeFrameOnInto?(bytes: Uint8Array, basis: CodedBasis<R>, out: AckedFrame<C, E>): void;
}

/**
 * What a coded frame's basis is looked up by ({@link AckedSchema.readBasis}); when the schema
 * has no `readBasis`, the header of the frame read into `scratch`, with `older` 0.
 */
function readBasisOf<R, C, E>(
  schema: AckedSchema<R, C, E, unknown>,
  bytes: Uint8Array,
  scratch: AckedFrame<C, E>,
): CodedBasisTicks {
  if (schema.readBasis !== undefined) {
    return schema.readBasis(bytes);
  }
  schema.decodeFrameInto(bytes, scratch);
  return { tick: scratch.tick, baseTick: scratch.baseTick, keyframe: scratch.keyframe, older: 0 };
}

const EID_BYTES = new Uint8Array(2);

/** FNV-1a 32 `hash` continued over `u16 eid` then the record's bytes (CHECK-2). */
function hashEntry<R>(
  schema: AckedSchema<R, unknown, unknown, unknown>,
  eid: number,
  r: R,
  h: number,
) {
  EID_BYTES[0] = eid & 0xff;
  EID_BYTES[1] = eid >>> 8;
  return schema.hashRecord(r, fnv1a32(EID_BYTES, h));
}

// ---- the server's states and the delta between them ----

/** One entity of a server-side state: its id, the life it belongs to, and its record. */
export interface ServerEntry<R> {
  /** The entity's id. */
  readonly eid: number;
  /** Which life of the id; an id whose life changed is, to the client, gone and whole again. */
  readonly life: number;
  /** What the client is to hold of it. */
  readonly record: R;
}

/** S_N as the server computes it for one client: every entity, ascending by id. */
export type ServerState<R> = readonly ServerEntry<R>[];

/**
 * The check of a state (CHECK-2): FNV-1a over every record of the state the frame produces, in
 * ascending eid, each as its `u16 eid` then the record's canonical bytes.
 */
export function serverCheck<R>(
  schema: AckedSchema<R, unknown, unknown, unknown>,
  state: ServerState<R>,
): number {
  let h = 0x811c9dc5;
  for (const e of state) {
    h = hashEntry(schema, e.eid, e.record, h);
  }
  return h;
}

/**
 * What turns `base` into `next` (the removed ids and the changes, both ascending) in a frame of
 * tick `tick`; `base` is `undefined` for a keyframe. ACK-19, ACK-21: frame N carries what turns the
 * acknowledged S_B into S_N: the entities gone or living a new life removed (the latter whole
 * again), the groups that differ, a position as steps from the base's.
 */
export function delta<R, C>(
  schema: AckedSchema<R, C, unknown, unknown>,
  base: ServerState<R> | undefined,
  next: ServerState<R>,
  tick: number,
): { removed: number[]; changes: C[] } {
  const removed: number[] = [];
  const changes: C[] = [];
  const held = base ?? [];
  let h = 0;
  for (let i = 0; i < next.length; i++) {
    const entry = next[i]!;
    while (h < held.length && held[h]!.eid < entry.eid) {
      removed.push(held[h]!.eid);
      h += 1;
    }
    let before: R | undefined;
    if (h < held.length && held[h]!.eid === entry.eid) {
      const old = held[h]!;
      h += 1;
      if (old.life === entry.life) {
        before = old.record;
      } else {
        removed.push(entry.eid);
      }
    }
    let change: C | undefined;
    try {
      change = schema.diff(entry.eid, before, entry.record, tick);
    } catch (e) {
      if (e instanceof EncodeError) {
        e.within(i).within("changes");
      }
      throw e;
    }
    if (change !== undefined) {
      changes.push(change);
    } else if (before === undefined) {
      // A whole entity always gives a change.
      throw new EncodeError("invalid_condition", `changes[${i}]`);
    }
  }
  for (; h < held.length; h++) {
    removed.push(held[h]!.eid);
  }
  return { removed, changes };
}

// ---- the client ----

/** What the client's AckedDecoder has done, for meters and tests. */
export interface DecoderCounters {
  /** Frames applied and shown. */
  applied: number;
  /** Frames not newer than the last applied, dropped. */
  stale: number;
  /**
   * Frames whose base the decoder does not hold, dropped; and, of a coded schema, frames whose
   * older snapshot it does not hold (CODE-3: dropped as a frame without its base is, an
   * `unknown_base` delivery), also counted in {@link unknownOlder}.
   */
  unknownBase: number;
  /**
   * Of {@link unknownBase}, the coded frames whose base the decoder holds but whose older
   * snapshot (CODE-2) it does not.
   */
  unknownOlder: number;
  /** Frames that did not decode. */
  undecodable: number;
  /** Frames that decoded but could not apply onto their base. */
  inapplicable: number;
  /** Checks that matched. */
  checksPassed: number;
  /** Checks that did not match. */
  checksFailed: number;
  /** Events shown. */
  eventsShown: number;
}

/**
 * What an applied frame changed, told against the last frame shown, not the base. ACK-34: the
 * report of a frame (changed, measured and when, gone, tiers) compares with the last frame shown
 * rather than the base, so a pose repeated after it was shown is not a new measurement.
 *
 * The decoder owns one report and refills it for every frame it shows (its arrays are reused,
 * so a warm delivery allocates none); it is lent until the next delivery. Pairs are kept as
 * parallel arrays (`measuredEids[i]` was measured at `measuredTicks[i]`).
 */
export class FrameReport<E> {
  /** The frame's tick. */
  tick = 0;
  /** The tick of the frame it applied onto (0 for a keyframe). */
  baseTick = 0;
  /** Whether it was a keyframe. */
  keyframe = false;
  /** Entities whose record differs from the last frame shown (or new to it), ascending. */
  readonly changed: number[] = [];
  /** Entities with a pose measured since the last frame shown... */
  readonly measuredEids: number[] = [];
  /** ... and the tick each was measured at. */
  readonly measuredTicks: number[] = [];
  /** Entities the last frame shown held and this one does not, ascending. */
  readonly gone: number[] = [];
  /** The changed entities with a tier, as the client sees it... */
  readonly tierEids: number[] = [];
  /** ... and whether each one's pose came full. */
  readonly tierFull: boolean[] = [];
  /** The events shown for the first time... */
  readonly events: E[] = [];
  /** ... and their serials. */
  readonly eventSerials: number[] = [];
  /** The check's verdict, when the frame carried one. */
  check: boolean | undefined = undefined;

  /** Empties the lists, keeping their arrays. */
  clear(): void {
    this.changed.length = 0;
    this.measuredEids.length = 0;
    this.measuredTicks.length = 0;
    this.gone.length = 0;
    this.tierEids.length = 0;
    this.tierFull.length = 0;
    this.events.length = 0;
    this.eventSerials.length = 0;
    this.check = undefined;
  }
}

/** What the decoder did with a frame. */
export type Delivery<E> =
  /** Applied and shown; the report is the decoder's, lent until its next delivery. */
  | { readonly kind: "shown"; readonly report: FrameReport<E> }
  /** Not newer than the last frame applied: dropped, counted. */
  | { readonly kind: "stale"; readonly tick: number }
  /** Its base is not held, or (a coded frame, CODE-3) its older snapshot: dropped, counted. */
  | { readonly kind: "unknown_base"; readonly tick: number; readonly baseTick: number }
  /** The bytes are not a frame. */
  | { readonly kind: "undecodable"; readonly error: DecodeError }
  /** A frame that cannot apply onto the base it named. */
  | { readonly kind: "inapplicable"; readonly tick: number; readonly why: string };

/** The most entity ids there are: a u16 on the wire. */
const IDS = 65536;

/** `table` grown (with `undefined`) so that index `eid` fits: a power of two, at least 64. */
function fit<T>(table: (T | undefined)[], eid: number): void {
  let n = Math.max(64, table.length);
  while (n <= eid) {
    n *= 2;
  }
  n = Math.min(n, IDS);
  for (let i = table.length; i < n; i++) {
    table.push(undefined);
  }
}

/**
 * The state the client shows: every entity's record in a table indexed by id, so that a frame
 * edits an entity in place whatever the size of the world. It grows to the largest id held (at
 * most 65,536 slots, a u16's ids: the most a hostile server can make it hold).
 */
export class LiveState<R> {
  private readonly slots: (R | undefined)[] = [];
  private count = 0;

  /** The record of `eid`. */
  get(eid: number): R | undefined {
    return this.slots[eid];
  }

  /** How many entities. */
  get size(): number {
    return this.count;
  }

  /** Calls `f` with every entity, ascending by id. */
  forEach(f: (eid: number, record: R) => void): void {
    const slots = this.slots;
    for (let i = 0; i < slots.length; i++) {
      const r = slots[i];
      if (r !== undefined) {
        f(i, r);
      }
    }
  }

  /** The largest slot index plus one (the ids at or past it are not held). */
  get span(): number {
    return this.slots.length;
  }

  /** Sets (or with `undefined` clears) the record of `eid`. */
  set(eid: number, record: R | undefined): void {
    if (eid >= this.slots.length) {
      if (record === undefined) {
        return;
      }
      fit(this.slots, eid);
    }
    const was = this.slots[eid] !== undefined;
    if (was !== (record !== undefined)) {
      this.count += was ? -1 : 1;
    }
    this.slots[eid] = record;
  }
}

/** One held frame: its tick, and the edits that undo it (what the frame before it held). */
interface Held<R> {
  tick: number;
  /** The entities the frame changed, ascending... */
  eids: number[];
  /** ... and the record each held before it (`undefined`: not held). */
  recs: (R | undefined)[];
}

/**
 * The entities a frame touches and what they become, built before anything is written, so that
 * a frame applies entirely or not at all. Which ids are touched is a two-level bit set over the
 * 65,536 ids (64 words over 2,048), so the touched entities are walked in ascending id without
 * sorting, at a cost of the entities touched plus 64 words, whatever the world.
 */
class Staged<R> {
  readonly vals: (R | undefined)[] = [];
  private readonly leaf = new Uint32Array(IDS / 32);
  private readonly top = new Uint32Array(IDS / 32 / 32);

  /** Whether `eid` is touched. */
  touched(eid: number): boolean {
    return (this.leaf[eid >>> 5]! & (1 << (eid & 31))) !== 0;
  }

  /** Touches `eid` (not yet touched) with the record it starts from. */
  put(eid: number, from: R | undefined): void {
    const w = eid >>> 5;
    this.leaf[w] = this.leaf[w]! | (1 << (eid & 31));
    this.top[w >>> 5] = this.top[w >>> 5]! | (1 << (w & 31));
    if (eid >= this.vals.length) {
      fit(this.vals, eid);
    }
    this.vals[eid] = from;
  }

  /** Forgets everything staged. */
  clear(): void {
    for (let t = 0; t < this.top.length; t++) {
      let words = this.top[t]!;
      this.top[t] = 0;
      while (words !== 0) {
        const bit = words & -words;
        words ^= bit;
        const w = t * 32 + (31 - Math.clz32(bit));
        let bits = this.leaf[w]!;
        this.leaf[w] = 0;
        while (bits !== 0) {
          const b = bits & -bits;
          bits ^= b;
          this.vals[w * 32 + (31 - Math.clz32(b))] = undefined;
        }
      }
    }
  }

  /** Every staged id, ascending, into `out` (emptied first); then nothing is staged. */
  drainIds(out: number[]): void {
    out.length = 0;
    for (let t = 0; t < this.top.length; t++) {
      let words = this.top[t]!;
      if (words === 0) {
        continue;
      }
      this.top[t] = 0;
      while (words !== 0) {
        const bit = words & -words;
        words ^= bit;
        const w = t * 32 + (31 - Math.clz32(bit));
        let bits = this.leaf[w]!;
        this.leaf[w] = 0;
        while (bits !== 0) {
          const b = bits & -bits;
          bits ^= b;
          out.push(w * 32 + (31 - Math.clz32(b)));
        }
      }
    }
  }
}

const REMOVED_NOT_HELD = "a removed id the base does not hold";

/** The place of `eid` in `eids` (ascending), or -1: a binary search. */
function indexOfId(eids: readonly number[], eid: number): number {
  let lo = 0;
  let hi = eids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const e = eids[mid]!;
    if (e === eid) {
      return mid;
    }
    if (e < eid) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return -1;
}

/**
 * The records a coded frame is predicted from (CODE-13, CODE-14) as the decoder holds them:
 * those of its base and of its older snapshot, each a held frame B given by the place in `held`
 * after it (`undefined`: no such frame, no records). B's record of an entity is the live state's
 * with the undo edits of the frames after B laid over it, the oldest that edited the entity
 * winning: a lookup costs a binary search in each frame after B (at most HELD_RING), never a walk
 * of the world. One per decoder, pointed at each coded frame's base and older snapshot in turn.
 */
class HeldBasis<R> implements CodedBasis<R> {
  private readonly live: LiveState<R>;
  private readonly held: readonly Held<R>[];
  /** The place in `held` after the frame's base. */
  baseAfter: number | undefined = undefined;
  /** The place in `held` after the frame's older snapshot. */
  olderAfter: number | undefined = undefined;

  constructor(live: LiveState<R>, held: readonly Held<R>[]) {
    this.live = live;
    this.held = held;
  }

  /** The entity's record in the frame's base. */
  base(eid: number): R | undefined {
    return this.at(this.baseAfter, eid);
  }

  /** The entity's record in the frame's older snapshot. */
  older(eid: number): R | undefined {
    return this.at(this.olderAfter, eid);
  }

  private at(after: number | undefined, eid: number): R | undefined {
    if (after === undefined) {
      return undefined;
    }
    const held = this.held;
    for (let k = after; k < held.length; k++) {
      const h = held[k]!;
      const j = indexOfId(h.eids, eid);
      if (j >= 0) {
        return h.recs[j];
      }
    }
    return this.live.get(eid);
  }
}

/**
 * The client's half of the acked stream (ACK-29 to ACK-36): holds the states of its last HELD_RING
 * frames by tick, applies each frame onto the base it names, shows each event once.
 *
 * Feed it every kind 6 frame with {@link deliver}; after each, answer with a kind 7 frame
 * acknowledging {@link ackTick} (see {@link AckWriter}). It never throws on a peer's bytes and
 * never grows past HELD_RING states, whatever it is fed.
 *
 * The design is the Rust decoder's: one live state (the last frame shown) edited in place;
 * each held frame keeps the edits that undo it, so the state of a held base B is the live
 * state with the undo edits of every frame after B laid over it, the oldest edit of an entity
 * winning. A frame touches only the entities it names and those edited since its base, never
 * the world (the check, every CHECK_EVERY frames, and a keyframe aside); the undo arrays and
 * the report are reused, so a warm delivery allocates little beyond the decoded frame.
 *
 * A coded schema's frame (CODE-3) is read in two steps: what its basis is looked up by first
 * ({@link AckedSchema.readBasis}); the frame dropped as one without its base when its base or its
 * older snapshot is not held; else read against their records, each entity's found through the
 * undo edits of the frames after the held frame, a binary search in each (`HeldBasis`).
 */
export class AckedDecoder<R, C, E, I> {
  private readonly schema: AckedSchema<R, C, E, I>;
  /** The state of the last frame shown, edited in place by every frame applied. */
  private readonly live = new LiveState<R>();
  /** The tick of the last frame shown. */
  private shownTick: number | undefined = undefined;
  /**
   * ACK-29: the client holds the states of its last HELD_RING applied frames, by tick, oldest
   * first, each as the edits that undo it. When any is held, the newest is the frame shown (the
   * live state).
   */
  private held: Held<R>[] = [];
  /** Undo arrays of frames no longer held, for the next frames to reuse. */
  private readonly spare: Held<R>[] = [];
  private readonly frame: AckedFrame<C, E> = emptyFrame();
  private readonly staged = new Staged<R>();
  private readonly ids: number[] = [];
  private readonly report = new FrameReport<E>();
  private readonly shownDelivery: Delivery<E>;
  /** The schema's frames are coded (CODE-2, CODE-3). */
  private readonly coded: boolean;
  private readonly basis: HeldBasis<R>;
  private newestSerial: number | undefined = undefined;
  private wanted = false;
  private seq = 0;
  private buffer = 0;
  /** What the decoder has done. */
  readonly counters: DecoderCounters = {
    applied: 0,
    stale: 0,
    unknownBase: 0,
    unknownOlder: 0,
    undecodable: 0,
    inapplicable: 0,
    checksPassed: 0,
    checksFailed: 0,
    eventsShown: 0,
  };

  /** A decoder of `schema` that holds nothing and has shown nothing. */
  constructor(schema: AckedSchema<R, C, E, I>) {
    this.schema = schema;
    this.shownDelivery = { kind: "shown", report: this.report };
    this.coded = schema.coded?.() === true;
    this.basis = new HeldBasis(this.live, this.held);
  }

  /** Takes one frame's bytes. Throws nothing for any bytes a peer can send. */
  deliver(bytes: Uint8Array): Delivery<E> {
    const frame = this.frame;
    let afterBase = this.held.length;
    if (this.coded) {
      const read = this.readCoded(bytes);
      if (typeof read !== "number") {
        return read;
      }
      afterBase = read;
    } else {
      try {
        this.schema.decodeFrameInto(bytes, frame);
      } catch (e) {
        if (e instanceof DecodeError) {
          this.counters.undecodable += 1;
          return { kind: "undecodable", error: e };
        }
        throw e;
      }
      // ACK-31: a frame not newer than the last one applied is stale, and dropped.
      if (this.shownTick !== undefined && frame.tick <= this.shownTick) {
        this.counters.stale += 1;
        return { kind: "stale", tick: frame.tick };
      }
      // ACK-30: a frame onto a base the client no longer holds (or never had) is dropped silently;
      // a later frame, on a newer acknowledgement, follows. While a keyframe is wanted the decoder
      // holds nothing, so only a keyframe applies.
      if (!frame.keyframe) {
        const after = this.after(frame.baseTick);
        if (after === undefined) {
          this.counters.unknownBase += 1;
          return { kind: "unknown_base", tick: frame.tick, baseTick: frame.baseTick };
        }
        afterBase = after;
      }
    }
    const why = this.stage(afterBase);
    if (why !== undefined) {
      this.staged.clear();
      this.counters.inapplicable += 1;
      return { kind: "inapplicable", tick: frame.tick, why };
    }
    const undo = this.spare.pop() ?? { tick: 0, eids: [], recs: [] };
    undo.tick = frame.tick;
    undo.eids.length = 0;
    undo.recs.length = 0;
    this.commit(undo);
    // ACK-36: a frame that carries a check is held to the check (CHECK-2) of the state it produces.
    const check = frame.check === undefined ? undefined : this.stateHash() === frame.check;
    if (check === true) {
      this.counters.checksPassed += 1;
    } else if (check === false) {
      this.counters.checksFailed += 1;
    }
    this.report.check = check;
    this.counters.applied += 1;
    this.seq = frame.lastSeq;
    this.buffer = frame.inputBuffer;
    this.shownTick = frame.tick;
    if (check === false) {
      // ACK-36, ACK-13: a mismatch: every state held may be wrong. Hold nothing, acknowledge
      // nothing and ask for a keyframe (AckFlags::KEYFRAME_REQUEST, acked.wire) until one applies.
      this.wanted = true;
      for (const h of this.held) {
        this.spare.push(h);
      }
      this.held.length = 0;
      this.spare.push(undo);
    } else {
      if (frame.keyframe) {
        this.wanted = false;
      }
      if (this.wanted) {
        this.spare.push(undo);
      } else {
        if (this.held.length >= this.schema.HELD_RING) {
          // The oldest held frame's edits lead to a frame no longer held.
          this.spare.push(this.held.shift()!);
        }
        this.held.push(undo);
      }
    }
    return this.shownDelivery;
  }

  /**
   * The place in `held` after the held frame of tick `tick`, if it is held. Searched from the
   * newest: a base is a recent frame.
   */
  private after(tick: number): number | undefined {
    for (let i = this.held.length - 1; i >= 0; i--) {
      if (this.held[i]!.tick === tick) {
        return i + 1;
      }
    }
    return undefined;
  }

  /**
   * A coded frame (CODE-2, CODE-3) up to its application: what its basis is looked up by read
   * first, then, unless it is stale (ACK-31) or its base or its older snapshot is not held
   * (dropped as ACK-30 drops a frame without its base, before its changes are read), the frame
   * read into `frame` against the records of both as the decoder holds them (`HeldBasis`). The
   * place in `held` after its base, or the delivery that says why it goes no further.
   */
  private readCoded(bytes: Uint8Array): number | Delivery<E> {
    const schema = this.schema;
    const frame = this.frame;
    let ticks: CodedBasisTicks;
    try {
      ticks = readBasisOf(schema, bytes, frame);
    } catch (e) {
      if (e instanceof DecodeError) {
        this.counters.undecodable += 1;
        return { kind: "undecodable", error: e };
      }
      throw e;
    }
    if (this.shownTick !== undefined && ticks.tick <= this.shownTick) {
      this.counters.stale += 1;
      return { kind: "stale", tick: ticks.tick };
    }
    // CODE-2: a keyframe names no older snapshot (the schema refuses one that does).
    let base: number | undefined = undefined;
    let older: number | undefined = undefined;
    if (!ticks.keyframe) {
      base = this.after(ticks.baseTick);
      if (base === undefined) {
        this.counters.unknownBase += 1;
        return { kind: "unknown_base", tick: ticks.tick, baseTick: ticks.baseTick };
      }
      if (ticks.older !== 0) {
        // Before tick 0 the server sent nothing, so nothing there is held.
        const olderTick = ticks.baseTick - ticks.older;
        older = olderTick < 0 ? undefined : this.after(olderTick);
        if (older === undefined) {
          this.counters.unknownBase += 1;
          this.counters.unknownOlder += 1;
          return { kind: "unknown_base", tick: ticks.tick, baseTick: ticks.baseTick };
        }
      }
    }
    const basis = this.basis;
    basis.baseAfter = base;
    basis.olderAfter = older;
    try {
      if (schema.decodeFrameOnInto !== undefined) {
        schema.decodeFrameOnInto(bytes, basis, frame);
      } else {
        schema.decodeFrameInto(bytes, frame);
      }
      // The frame must be the one its prefix said, or it would apply onto another base than
      // the one it was read against.
      if (
        frame.tick !== ticks.tick ||
        frame.baseTick !== ticks.baseTick ||
        frame.keyframe !== ticks.keyframe
      ) {
        throw new DecodeError("invalid_condition", 0, undefined, "base_tick");
      }
    } catch (e) {
      if (e instanceof DecodeError) {
        this.counters.undecodable += 1;
        return { kind: "undecodable", error: e };
      }
      throw e;
    } finally {
      basis.baseAfter = undefined;
      basis.olderAfter = undefined;
    }
    return base ?? this.held.length;
  }

  /**
   * The rules of ACK-5, ACK-21 and ACK-32 for a frame's removals and changes onto its base (the
   * live state with the undo edits of the held frames from `afterBase` on laid over it, the first
   * of an entity winning; nothing for a keyframe), staged. Returns why the frame does not apply, if
   * it does not. The faults are those of applying the removals one by one, then the changes one by
   * one: a removed id the base does not hold (or removed twice) wins over any fault of a change,
   * and of the changes' faults the first in frame order is told.
   */
  private stage(afterBase: number): string | undefined {
    const frame = this.frame;
    const staged = this.staged;
    const live = this.live;
    if (frame.keyframe) {
      // A keyframe applies onto nothing: every entity held goes unless the frame names it.
      if (frame.removed.length > 0) {
        return REMOVED_NOT_HELD;
      }
      const span = live.span;
      for (let eid = 0; eid < span; eid++) {
        if (live.get(eid) !== undefined) {
          staged.put(eid, undefined);
        }
      }
    } else {
      // The base's records of the entities edited since: the oldest undo edit of each.
      for (let k = afterBase; k < this.held.length; k++) {
        const h = this.held[k]!;
        for (let j = 0; j < h.eids.length; j++) {
          const eid = h.eids[j]!;
          if (!staged.touched(eid)) {
            staged.put(eid, h.recs[j]);
          }
        }
      }
      // ACK-5: the entities gone, and those living a new life under their id, are removed (the
      // latter come again whole). The wire does not make the removals ascend; taken one by one, any
      // order of distinct held ids applies, and an id twice is a removal of an id no longer held.
      for (const eid of frame.removed) {
        if (!staged.touched(eid)) {
          staged.put(eid, live.get(eid));
        }
        if (staged.vals[eid] === undefined) {
          return REMOVED_NOT_HELD;
        }
        staged.vals[eid] = undefined;
      }
    }
    let last = -1;
    const schema = this.schema;
    for (const change of frame.changes) {
      const eid = schema.changeEid(change);
      if (eid <= last) {
        return "changes not in ascending id order";
      }
      last = eid;
      if (!staged.touched(eid)) {
        staged.put(eid, frame.keyframe ? undefined : live.get(eid));
      }
      // ACK-33: a pose sent with its age is recorded at the tick it was true (the schema's `apply`:
      // tick minus age).
      try {
        staged.vals[eid] = schema.apply(staged.vals[eid], change, frame.tick);
      } catch (e) {
        if (e instanceof Inapplicable) {
          return e.why;
        }
        throw e;
      }
    }
    return undefined;
  }

  /**
   * Writes the staged entities into the live state, keeping what each write overwrote in
   * `undo`, and fills the report against the state overwritten (the last frame shown); marks
   * the frame's new events shown.
   */
  private commit(undo: Held<R>): void {
    const frame = this.frame;
    const report = this.report;
    const schema = this.schema;
    const live = this.live;
    const vals = this.staged.vals;
    report.clear();
    report.tick = frame.tick;
    report.baseTick = frame.baseTick;
    report.keyframe = frame.keyframe;
    const ids = this.ids;
    this.staged.drainIds(ids);
    for (let k = 0; k < ids.length; k++) {
      const eid = ids[k]!;
      const next = vals[eid];
      vals[eid] = undefined;
      const old = live.get(eid);
      if (
        old === next ||
        (old !== undefined && next !== undefined && schema.sameRecord(old, next))
      ) {
        continue;
      }
      if (next === undefined) {
        report.gone.push(eid);
      } else {
        report.changed.push(eid);
        const m = schema.measured(next);
        if (m !== undefined && (old === undefined || schema.measured(old) !== m)) {
          report.measuredEids.push(eid);
          report.measuredTicks.push(m);
        }
        const full = schema.poseFull(next);
        if (full !== undefined) {
          report.tierEids.push(eid);
          report.tierFull.push(full);
        }
      }
      undo.eids.push(eid);
      undo.recs.push(old);
      live.set(eid, next);
    }
    // ACK-35: each event is shown once, only when its serial is above the newest shown.
    for (let i = 0; i < frame.events.length; i++) {
      // Modulo 2^32, as the server numbers them: a first serial near 2^32 wraps.
      const serial = (frame.firstSerial + i) >>> 0;
      if (this.newestSerial === undefined || serial > this.newestSerial) {
        this.newestSerial = serial;
        this.counters.eventsShown += 1;
        report.eventSerials.push(serial);
        report.events.push(frame.events[i]!);
      }
    }
  }

  /**
   * The tick of the newest frame applied, which the next kind 7 frame acknowledges; 0 before
   * the first and while a keyframe is wanted ("acknowledges nothing until one arrives",
   * AckFlags::KEYFRAME_REQUEST in acked.wire).
   */
  ackTick(): number {
    return this.wanted ? 0 : (this.shownTick ?? 0);
  }

  /** Whether a check failed and no keyframe has applied since (KEYFRAME_REQUEST is due). */
  keyframeWanted(): boolean {
    return this.wanted;
  }

  /** The tick of the last frame shown, if any. */
  shown(): number | undefined {
    return this.shownTick;
  }

  /** The state shown (read it, never edit it: it is the decoder's). */
  state(): LiveState<R> {
    return this.live;
  }

  /** The check of the state shown (of an empty state before the first frame). */
  stateHash(): number {
    let h = 0x811c9dc5;
    const live = this.live;
    const span = live.span;
    for (let eid = 0; eid < span; eid++) {
      const r = live.get(eid);
      if (r !== undefined) {
        h = hashEntry(this.schema, eid, r, h);
      }
    }
    return h;
  }

  /** The newest input sequence the server said it processed (of the last frame applied). */
  lastSeq(): number {
    return this.seq;
  }

  /** How many inputs the server said it holds (of the last frame applied). */
  inputBuffer(): number {
    return this.buffer;
  }

  /** How many frame states are held. */
  heldCount(): number {
    return this.held.length;
  }

  /**
   * Changes every record the decoder holds and shows through `f` (which edits a record in
   * place): a memory corruption, for tests and the conformance scenario that the check must
   * catch. A record shared between held states is changed once, as each state's copy is in
   * Rust.
   */
  tamper(f: (eid: number, record: R) => void): void {
    const seen = new Set<R>();
    const once = (eid: number, r: R | undefined) => {
      if (r !== undefined && !seen.has(r)) {
        seen.add(r);
        f(eid, r);
      }
    };
    this.live.forEach(once);
    for (const h of this.held) {
      for (let j = 0; j < h.eids.length; j++) {
        once(h.eids[j]!, h.recs[j]);
      }
    }
  }
}

/**
 * Builds the client's kind 7 content (ACK-10 to ACK-12: the tick of the newest frame applied, and
 * the recent inputs, each with its sequence number and the server tick it aims at, repeated over
 * several frames so that a lost frame loses no input).
 *
 * Inputs are numbered from 1 and kept until the server's `last_seq` says it processed them,
 * or until more than `keep` newer ones have been pushed (`keep` clamped to 1..=255, the
 * count's width); every frame carries all of those kept, oldest first.
 */
export class AckWriter<I> {
  private readonly seqs: number[] = [];
  private readonly inputs: I[] = [];
  private nextSeq = 1;
  private readonly keep: number;

  /** A writer that repeats at most `keep` inputs (clamped to 1..=255, the count's width). */
  constructor(keep: number) {
    this.keep = Math.min(255, Math.max(1, Math.floor(Number.isFinite(keep) ? keep : 255)));
  }

  /** Adds an input; returns its sequence number. */
  push(input: I): number {
    const seq = this.nextSeq;
    this.nextSeq = (this.nextSeq + 1) >>> 0;
    this.seqs.push(seq);
    this.inputs.push(input);
    if (this.seqs.length > this.keep) {
      const n = this.seqs.length - this.keep;
      this.seqs.splice(0, n);
      this.inputs.splice(0, n);
    }
    return seq;
  }

  /** The server processed every input up to `lastSeq`: stop repeating them. */
  confirm(lastSeq: number): void {
    let n = 0;
    while (n < this.seqs.length && this.seqs[n]! <= lastSeq) {
      n += 1;
    }
    if (n > 0) {
      this.seqs.splice(0, n);
      this.inputs.splice(0, n);
    }
  }

  /** How many inputs are still repeated. */
  get pending(): number {
    return this.seqs.length;
  }

  /**
   * The kind 7 content acknowledging `ackTick`; `keyframeRequest` sets KEYFRAME_REQUEST (the
   * client's check failed and it holds no base), and the tick is then 0.
   */
  frame(ackTick: number, keyframeRequest: boolean): AckContent<I> {
    return {
      ackTick: keyframeRequest ? 0 : ackTick,
      keyframeRequest,
      firstSeq: this.seqs[0] ?? 0,
      inputs: this.inputs.slice(),
    };
  }
}

// ---- the server ----

/**
 * Where an {@link AckedEncoder} hands the client's inputs: each input of a kind 7 frame whose
 * sequence number is new, and where the header's `input_buffer` comes from (`input_schedule.ts`'s
 * ScheduledInputs implements it over the input schedule, SRV-12 to SRV-16).
 */
export interface InputSink<I> {
  /** Takes a new input `seq` aimed at server tick `tick`, judged against tick `current`. */
  submit(seq: number, tick: number, input: I, current: number): void;
  /** How many inputs it holds ahead of execution (the header's `input_buffer`, up to 255). */
  pending(): number;
}

/**
 * Inputs a client may have buffered in its {@link InputSink} at once; more are dropped before
 * `submit` (ACK-25).
 */
export const MAX_BUFFERED_INPUTS = 256;

/** A frame to send. */
export interface Outgoing<C, E> {
  /** The frame. */
  readonly frame: AckedFrame<C, E>;
  /** Its bytes. */
  readonly bytes: Uint8Array;
  /**
   * ACK-27: a frame over RELIABLE_ABOVE bytes goes on the reliable channel, and is still a frame
   * like any other.
   */
  readonly reliable: boolean;
}

/** What the encoder has done, for meters and tests. */
export interface EncoderCounters {
  /** Frames sent. */
  frames: number;
  /** Of which keyframes. */
  keyframes: number;
  /** Of which marked for the reliable channel. */
  reliable: number;
  /** Acks that moved the base forward. */
  acksTaken: number;
  /** Acks of a tick the server does not keep. */
  acksUnknown: number;
  /** Acks not newer than the base taken, or from before a keyframe request. */
  acksOld: number;
  /** Keyframe requests received. */
  keyframeRequests: number;
  /** Events dropped after EVENT_TTL frames without an acknowledgement. */
  eventsExpired: number;
  /** Coded frames that named an older snapshot (CODE-2). */
  olderNamed: number;
  /** Inputs submitted to the input sink. */
  inputsTaken: number;
  /** Inputs already taken, carried again. */
  inputsRepeated: number;
  /** Inputs dropped because MAX_BUFFERED_INPUTS were buffered. */
  inputsOverflow: number;
}

/** What an ack did to the base. */
export type AckVerdict = "taken" | "old" | "unknown" | "nothing" | "keyframe_requested";

/**
 * One frame the server keeps: its tick, the state it produced, the newest event serial it
 * carried, and whether the client acknowledged it (since its last keyframe request): a frame it
 * applied, which a coded frame may name as its older snapshot (CODE-2).
 */
interface Kept<R> {
  tick: number;
  state: ServerState<R>;
  eventsThrough: number | undefined;
  acked: boolean;
}

/** The record of `eid` in `state` (ascending by id), whatever the life: a binary search. */
function recordOf<R>(state: ServerState<R> | undefined, eid: number): R | undefined {
  if (state === undefined) {
    return undefined;
  }
  let lo = 0;
  let hi = state.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const e = state[mid]!;
    if (e.eid === eid) {
      return e.record;
    }
    if (e.eid < eid) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return undefined;
}

/**
 * The records a coded frame is predicted from (CODE-13, CODE-14) as the encoder keeps them: those
 * of its base and of its older snapshot, each a kept frame's state (`undefined`: no such frame, no
 * records), looked up by id, a binary search each, never a walk of the world. The record whatever
 * the life it belongs to: the client holds records, not lives.
 */
class KeptBasis<R> implements CodedBasis<R> {
  private readonly baseState: ServerState<R> | undefined;
  private readonly olderState: ServerState<R> | undefined;

  constructor(base: Kept<R> | undefined, older: Kept<R> | undefined) {
    this.baseState = base?.state;
    this.olderState = older?.state;
  }

  /** The entity's record in the frame's base. */
  base(eid: number): R | undefined {
    return recordOf(this.baseState, eid);
  }

  /** The entity's record in the frame's older snapshot. */
  older(eid: number): R | undefined {
    return recordOf(this.olderState, eid);
  }
}

interface Pending<E> {
  serial: number;
  born: number;
  event: E;
}

/**
 * The server's per-client acked encoder (ACK-17 to ACK-28), generic over the schema and over where
 * the client's inputs go. Each tick, compute the client's S_N (the reference protocol's Presenter)
 * and call {@link encode}; hand every kind 7 frame to {@link receive}. Memory stays bounded
 * whatever the acks say: SENT_RING frames, the events of EVENT_TTL frames, MAX_BUFFERED_INPUTS
 * inputs.
 *
 * It enforces the server's rules of `docs/spec/acked.md`: frame N onto the newest acknowledged
 * base it keeps (ACK-19), a keyframe without one (ACK-20), events until acknowledged or
 * EVENT_TTL frames (ACK-23), the check every CHECK_EVERY frames (ACK-24), the inputs taken once
 * by sequence (ACK-25), a keyframe request (ACK-26), the reliable channel over RELIABLE_ABOVE
 * bytes (ACK-27); and a coded schema's older snapshot (CODE-2): a frame onto a base names the
 * newest kept frame before the base that the client acknowledged (since its last keyframe
 * request), within 255 ticks, and is written against both frames' records
 * ({@link AckedSchema.encodeFrameOn}).
 */
export class AckedEncoder<R, C, E, I> {
  private readonly schema: AckedSchema<R, C, E, I>;
  private readonly sent: Kept<R>[] = [];
  private base: number | undefined = undefined;
  private floor: number | undefined = undefined;
  private pendingEvents: Pending<E>[] = [];
  private nextSerial = 1;
  private ackedSerial: number | undefined = undefined;
  /** The schema's frames are coded (CODE-2). */
  private readonly coded: boolean;
  /** Where the client's inputs go. */
  readonly inputs: InputSink<I>;
  private seq = 0;
  /** What the encoder has done. */
  readonly counters: EncoderCounters = {
    frames: 0,
    keyframes: 0,
    reliable: 0,
    acksTaken: 0,
    acksUnknown: 0,
    acksOld: 0,
    keyframeRequests: 0,
    eventsExpired: 0,
    olderNamed: 0,
    inputsTaken: 0,
    inputsRepeated: 0,
    inputsOverflow: 0,
  };

  /** An encoder of `schema` for a fresh client whose inputs go to `inputs`. */
  constructor(schema: AckedSchema<R, C, E, I>, inputs: InputSink<I>) {
    this.schema = schema;
    this.inputs = inputs;
    this.coded = schema.coded?.() === true;
  }

  /**
   * The frame of tick `tick`, producing `state` (S_N), with this tick's new `events`. A tick
   * not newer than the last frame's is refused (an EncodeError).
   */
  encode(tick: number, state: ServerState<R>, events: readonly E[]): Outgoing<C, E> {
    const schema = this.schema;
    const lastSent = this.sent[this.sent.length - 1];
    // ACK-28.
    if (lastSent !== undefined && tick <= lastSent.tick) {
      throw new EncodeError("invalid_condition", "tick");
    }
    const frameNo = this.counters.frames;
    for (const event of events) {
      this.pendingEvents.push({ serial: this.nextSerial, born: frameNo, event });
      this.nextSerial = (this.nextSerial + 1) >>> 0;
    }
    // ACK-23: an event goes again in each frame until one that carried it is acknowledged, or for
    // at most EVENT_TTL frames.
    let drop = 0;
    while (drop < this.pendingEvents.length) {
      const p = this.pendingEvents[drop]!;
      if (this.ackedSerial !== undefined && p.serial <= this.ackedSerial) {
        drop += 1;
      } else if (p.born + schema.EVENT_TTL <= frameNo) {
        this.counters.eventsExpired += 1;
        drop += 1;
      } else {
        break;
      }
    }
    if (drop > 0) {
      this.pendingEvents.splice(0, drop);
    }
    const baseAt = this.base === undefined ? -1 : this.sent.findIndex((k) => k.tick === this.base);
    const base = baseAt < 0 ? undefined : this.sent[baseAt];
    // CODE-2: a coded frame onto a base names the newest frame before it that the client
    // acknowledged, within 255 ticks; a keyframe names none.
    let older: Kept<R> | undefined = undefined;
    if (this.coded && base !== undefined) {
      for (let i = baseAt - 1; i >= 0 && base.tick - this.sent[i]!.tick <= 255; i--) {
        if (this.sent[i]!.acked) {
          older = this.sent[i];
          break;
        }
      }
    }
    const { removed, changes } = delta(schema, base?.state, state, tick);
    const carried = this.pendingEvents.slice(0, 255);
    const frame: AckedFrame<C, E> = {
      tick,
      baseTick: base?.tick ?? 0,
      lastSeq: this.seq,
      inputBuffer: Math.min(255, this.inputs.pending()),
      keyframe: base === undefined,
      // ACK-24: every CHECK_EVERY-th frame carries the check. Frames, not ticks, counted from 1:
      // the CHECK_EVERY-th frame carries the first check.
      check: (frameNo + 1) % schema.CHECK_EVERY === 0 ? serverCheck(schema, state) : undefined,
      removed,
      changes,
      firstSerial: carried[0]?.serial ?? 0,
      events: carried.map((p) => p.event),
    };
    let bytes: Uint8Array;
    if (this.coded) {
      // Ticks ascend (ACK-28), and the older one is within 255 of the base's.
      const distance = older === undefined ? 0 : frame.baseTick - older.tick;
      const basis = new KeptBasis(base, older);
      bytes =
        schema.encodeFrameOn !== undefined
          ? schema.encodeFrameOn(frame, distance, basis)
          : schema.encodeFrame(frame);
      this.counters.olderNamed += distance !== 0 ? 1 : 0;
    } else {
      bytes = schema.encodeFrame(frame);
    }
    const reliable = bytes.length > schema.RELIABLE_ABOVE;
    this.counters.frames += 1;
    this.counters.keyframes += frame.keyframe ? 1 : 0;
    this.counters.reliable += reliable ? 1 : 0;
    this.sent.push({
      tick,
      state,
      eventsThrough: carried[carried.length - 1]?.serial,
      acked: false,
    });
    // ACK-1, ACK-20: the server keeps fewer frames (SENT_RING) than the client holds, so every base
    // it names is one the client still holds.
    while (this.sent.length > schema.SENT_RING) {
      this.sent.shift();
    }
    if (this.base !== undefined && !this.sent.some((k) => k.tick === this.base)) {
      this.base = undefined;
    }
    return { frame, bytes, reliable };
  }

  /**
   * Takes a client's kind 7 content, judged against the tick the simulation is on, `current`.
   * Only a tick the server keeps and that is newer than the base already taken moves the base:
   * an ack of a tick never sent, from the future or repeated changes nothing, so no frame goes
   * onto a base the client cannot hold. Each input is taken once, by sequence number.
   */
  onAck(current: number, ack: AckContent<I>): AckVerdict {
    let verdict: AckVerdict;
    const t = ack.ackTick;
    // ACK-26: forget every acknowledgement, ignore those of frames sent before, send keyframes.
    if (ack.keyframeRequest) {
      // acked.wire, AckFlags::KEYFRAME_REQUEST: forget every acknowledgement, ignore those of
      // frames sent before the request, send keyframes until one is acked.
      this.counters.keyframeRequests += 1;
      this.base = undefined;
      // The client holds none of them any more.
      for (const k of this.sent) {
        k.acked = false;
      }
      this.floor = this.sent[this.sent.length - 1]?.tick ?? this.floor;
      verdict = "keyframe_requested";
    } else if (t === 0) {
      verdict = "nothing";
    } else if (this.floor !== undefined && t <= this.floor) {
      this.counters.acksOld += 1;
      verdict = "old";
    } else if (this.base !== undefined && t <= this.base) {
      // Too old to move the base, but a frame the client applied (CODE-2).
      const k = this.sent.find((k) => k.tick === t);
      if (k !== undefined) {
        k.acked = true;
      }
      this.counters.acksOld += 1;
      verdict = "old";
    } else {
      const k = this.sent.find((k) => k.tick === t);
      if (k !== undefined) {
        k.acked = true;
        this.base = t;
        if (k.eventsThrough !== undefined) {
          this.ackedSerial =
            this.ackedSerial === undefined
              ? k.eventsThrough
              : Math.max(this.ackedSerial, k.eventsThrough);
        }
        this.counters.acksTaken += 1;
        verdict = "taken";
      } else {
        this.counters.acksUnknown += 1;
        verdict = "unknown";
      }
    }
    for (let i = 0; i < ack.inputs.length; i++) {
      const seq = ack.firstSeq + i;
      if (seq > 0xffffffff) {
        break;
      }
      // ACK-25: each input taken once, by sequence number; at most MAX_BUFFERED_INPUTS held.
      if (seq <= this.seq) {
        this.counters.inputsRepeated += 1;
        continue;
      }
      this.seq = seq;
      if (this.inputs.pending() >= MAX_BUFFERED_INPUTS) {
        this.counters.inputsOverflow += 1;
        continue;
      }
      const input = ack.inputs[i]!;
      this.inputs.submit(seq, this.schema.inputTick(input), input, current);
      this.counters.inputsTaken += 1;
    }
    return verdict;
  }

  /** Takes a kind 7 frame's bytes (see {@link onAck}); throws a DecodeError. */
  receive(current: number, bytes: Uint8Array): AckVerdict {
    return this.onAck(current, this.schema.decodeAck(bytes));
  }

  /** The tick of the base the next frame goes onto, if any. */
  acked(): number | undefined {
    return this.base;
  }

  /** Frames kept (at most SENT_RING). */
  kept(): number {
    return this.sent.length;
  }

  /** Events waiting for an acknowledgement. */
  pendingEventCount(): number {
    return this.pendingEvents.length;
  }

  /** The newest input sequence taken. */
  lastSeq(): number {
    return this.seq;
  }
}
