/**
 * Delta streaming (`docs/spec/delta.md`), both halves, as the Rust codec's `delta` module: a
 * subscriber's visible set of keys sent as the keys that entered and left since a baseline, checked
 * by a digest on the return path.
 *
 * Relevance says what changed; this keeps the books that get it to a subscriber and keep it there.
 *
 * - {@link AckWindow}: the `(newest, mask)` pair of a `delta_ack` (DELTA-3 to DELTA-6);
 * - {@link Agreement}: the outcome of comparing a mirror's digest with the server's;
 * - {@link DeltaBaseline} (server) and {@link DeltaMirror} with {@link Divergence} (client);
 * - {@link DeltaServer} and {@link DeltaClient}: the session halves over a {@link DeltaSchema},
 *   which binds the machines to a protocol's `delta_plan` and `delta_ack` frames.
 *
 * Sans-IO: time is an argument in the application's own clock units, nothing reads a clock.
 */

import { SetDigest, decodeSlotKey, encodeSlotKey, type SlotKey } from "./digest.js";
import {
  type Now,
  Outbox,
  SessionError,
  type SessionHalf,
  type Transmit,
  expectFrame,
} from "./half.js";

const MASK64 = (1n << 64n) - 1n;

/** How many sequences behind the newest an {@link AckWindow}'s mask speaks about. */
export const WINDOW = 64n;

/**
 * The newest sequence received and a mask of the {@link WINDOW} before it. DELTA-6, DELTA-7: the
 * newest u64 sequence and a 64-bit mask whose bit i means that newest − 1 − i arrived;
 * contiguous_base(first) walks from first while the next sequence is held. Sequences are u64
 * `bigint`s; any pair a peer sends is accepted.
 */
export class AckWindow {
  private newestSeq = 0n;
  private bits = 0n;
  private started = false;

  /** The window a peer sent as `(newest, mask)`. */
  static fromEncoded(newest: bigint, mask: bigint): AckWindow {
    const w = new AckWindow();
    w.newestSeq = newest & MASK64;
    w.bits = mask & MASK64;
    w.started = true;
    return w;
  }

  /** The `[newest, mask]` pair to put on the wire, or `undefined` before anything arrived. */
  encode(): [bigint, bigint] | undefined {
    return this.started ? [this.newestSeq, this.bits] : undefined;
  }

  /**
   * Records that `seq` arrived. `true` when it is fresh: `false` for a duplicate and for a
   * straggler older than the window, which is forgotten.
   */
  observe(seq: bigint): boolean {
    if (!this.started) {
      this.newestSeq = seq;
      this.bits = 0n;
      this.started = true;
      return true;
    }
    if (seq > this.newestSeq) {
      const shift = seq - this.newestSeq;
      // A shift of exactly WINDOW keeps the old newest in the last bit; one more drops it.
      const moved = shift >= 64n ? 0n : (this.bits << shift) & MASK64;
      this.bits = shift <= WINDOW ? moved | (1n << (shift - 1n)) : 0n;
      this.newestSeq = seq;
      return true;
    }
    if (seq === this.newestSeq) {
      return false;
    }
    const back = this.newestSeq - seq;
    if (back > WINDOW) {
      return false;
    }
    const bit = 1n << (back - 1n);
    const fresh = (this.bits & bit) === 0n;
    this.bits |= bit;
    return fresh;
  }

  /** The newest sequence recorded, if any. */
  get newest(): bigint | undefined {
    return this.started ? this.newestSeq : undefined;
  }

  /** The mask as it goes on the wire: bit `i` is `newest - 1 - i`. */
  get mask(): bigint {
    return this.bits;
  }

  /** Whether `seq` is recorded as arrived; `false` outside the window and beyond the newest. */
  contains(seq: bigint): boolean {
    if (!this.started || seq > this.newestSeq) {
      return false;
    }
    if (seq === this.newestSeq) {
      return true;
    }
    const back = this.newestSeq - seq;
    return back <= WINDOW && (this.bits & (1n << (back - 1n))) !== 0n;
  }

  /**
   * The newest sequence such that every sequence from `first` up to it arrived (DELTA-7);
   * `undefined` when `first` did not arrive. At most {@link WINDOW} steps.
   */
  contiguousBase(first: bigint): bigint | undefined {
    if (!this.contains(first)) {
      return undefined;
    }
    let base = first;
    while (base < this.newestSeq && this.contains(base + 1n)) {
      base += 1n;
    }
    return base;
  }

  /** Forgets everything. */
  reset(): void {
    this.newestSeq = 0n;
    this.bits = 0n;
    this.started = false;
  }
}

/**
 * The outcome of one digest comparison (SRV-1: one type both sides share): `agrees`, `disagrees`
 * with both digests, or `unchecked` (DELTA-15: compared only once the frontier has reached the
 * newest packet reported).
 */
export type Agreement =
  | { readonly kind: "agrees" }
  | { readonly kind: "disagrees"; readonly expected: bigint; readonly reported: bigint }
  | { readonly kind: "unchecked" };

/** Compares the digest `reported` with the digest `expected` of the state believed held. */
export function compareDigests(expected: bigint, reported: bigint): Agreement {
  return expected === reported ? { kind: "agrees" } : { kind: "disagrees", expected, reported };
}

/** A `delta_plan` frame as a protocol's codec gives it (kind 9 of the reference protocol). */
export interface PlanFrame {
  /** FULL_BASELINE and BASELINE, as the schema's {@link DeltaSchema} bits say. */
  flags: number;
  /** This packet's sequence. */
  sequence: bigint;
  /** The sequence the differences were computed against. */
  baseline_seq?: bigint | undefined;
  /** Keys to hold, ascending. */
  entered: number[];
  /** Keys to drop, ascending. */
  left: number[];
}

/** A `delta_ack` frame (kind 10 of the reference protocol). */
export interface AckFrame {
  /** The newest sequence received. */
  newest: bigint;
  /** Bit i: newest - 1 - i arrived too. */
  mask: bigint;
  /** SetDigest of the keys held. */
  digest: bigint;
}

/** What binds the delta halves to a protocol: its frames' names, flag bits and codecs. */
export interface DeltaSchema {
  /** The plan frame's name in the spec (`delta_plan`). */
  readonly planFrame: string;
  /** The ack frame's name (`delta_ack`). */
  readonly ackFrame: string;
  /** The plan flag that says "clear the mirror first". */
  readonly fullBaseline: number;
  /** The plan flag that says `baseline_seq` follows. */
  readonly baseline: number;
  /** Decodes a plan; throws the codec's DecodeError. */
  decodePlan(bytes: Uint8Array): PlanFrame;
  /** Encodes a plan. */
  encodePlan(plan: PlanFrame): Uint8Array;
  /** Decodes an ack; throws the codec's DecodeError. */
  decodeAck(bytes: Uint8Array): AckFrame;
  /** Encodes an ack. */
  encodeAck(ack: AckFrame): Uint8Array;
}

/** How a mirror differs from the server's own key set ({@link DeltaMirror.divergenceFrom}). */
export interface Divergence {
  /** Keys the mirror holds that the server's set does not, ascending. */
  readonly extra: SlotKey[];
  /** Keys the server's set holds that the mirror does not, ascending. */
  readonly missing: SlotKey[];
}

/** What applying one plan did ({@link DeltaMirror.apply}). */
export interface Applied {
  /** Whether it was applied; `false` for one older than the newest applied. */
  applied: boolean;
  /** Whether it was a full baseline that cleared the mirror first. */
  cleared: boolean;
  /** Keys inserted. */
  entered: number;
  /** Keys removed. */
  left: number;
  /** Retractions naming an occupant the mirror does not hold, refused. */
  staleRefs: number;
}

/** Bounds on what a {@link DeltaMirror} holds, whatever the server sends. */
export interface MirrorLimits {
  /**
   * Occupants held at most (default 65,536, as the Rust `MirrorLimits::max_keys`). A plan that
   * would take the mirror past it is refused whole with a SessionError (`limit`): not applied,
   * not acknowledged, which to the server is a packet the network lost.
   */
  readonly maxKeys: number;
}

/** The default {@link MirrorLimits}. */
export const DEFAULT_MIRROR_LIMITS: MirrorLimits = { maxKeys: 1 << 16 };

/**
 * The client's copy of a streamed set of SlotKeys: one occupant per slot. A packet older than
 * the newest applied is acknowledged, not applied (on a link that reorders, applying it would
 * bring back a key a newer packet retracted). A reference to a generation other than the one
 * held is a stale reference, counted and refused.
 */
export class DeltaMirror {
  private readonly held = new Map<number, number>();
  private readonly limits: MirrorLimits;
  private readonly set = new SetDigest();
  private readonly window = new AckWindow();
  private appliedSeq: bigint | undefined = undefined;
  private readonly generational: boolean;
  /** Sequences skipped between applied packets. */
  framesLost = 0n;
  /** Packets not applied because a newer one was. */
  stalePackets = 0;
  /** References to an occupant not held, refused. */
  staleRefs = 0;

  /** An empty mirror; with `generational` false every key is taken as generation 0. */
  constructor(limits: MirrorLimits = DEFAULT_MIRROR_LIMITS, generational = true) {
    this.limits = limits;
    this.generational = generational;
  }

  private normalise(key: SlotKey): SlotKey {
    return this.generational ? key : { index: key.index, generation: 0 };
  }

  private isStale(seq: bigint): boolean {
    return this.appliedSeq !== undefined && seq <= this.appliedSeq;
  }

  /** Opens packet `seq`: records its arrival, says whether to apply it, clears on a full one. */
  begin(seq: bigint, fullBaseline: boolean): boolean {
    this.window.observe(seq);
    if (this.isStale(seq)) {
      this.stalePackets += 1;
      return false;
    }
    if (this.appliedSeq !== undefined) {
      this.framesLost += seq - this.appliedSeq - 1n;
    }
    this.appliedSeq = seq;
    if (fullBaseline) {
      this.clear();
    }
    return true;
  }

  /** Files `key`, replacing whatever occupies its slot; a new slot at the limit is refused. */
  insert(key: SlotKey): void {
    const k = this.normalise(key);
    if (this.held.size >= this.limits.maxKeys && !this.held.has(k.index)) {
      throw new SessionError(
        "limit",
        `the mirror would hold ${this.held.size + 1} keys, more than ${this.limits.maxKeys}`,
      );
    }
    this.insertWithinLimits(k);
  }

  private insertWithinLimits(k: SlotKey): void {
    const old = this.held.get(k.index);
    if (old !== undefined) {
      this.set.remove(encodeSlotKey({ index: k.index, generation: old }));
    }
    this.held.set(k.index, k.generation);
    this.set.insert(encodeSlotKey(k));
  }

  /** Removes the occupant `key` names; another generation's key is a stale reference. */
  remove(key: SlotKey): boolean {
    const k = this.normalise(key);
    const g = this.held.get(k.index);
    if (g === undefined) {
      return false;
    }
    if (g !== k.generation) {
      this.staleRefs += 1;
      return false;
    }
    this.set.remove(encodeSlotKey(k));
    this.held.delete(k.index);
    return true;
  }

  /** Whether the mirror holds the occupant `key` names. */
  contains(key: SlotKey): boolean {
    const k = this.normalise(key);
    return this.held.get(k.index) === k.generation;
  }

  /** Every key held, ascending as encoded keys. */
  keys(): number[] {
    const out: number[] = [];
    for (const [index, generation] of this.held) {
      out.push(encodeSlotKey({ index, generation }));
    }
    return out.sort((a, b) => a - b);
  }

  /** How many occupants are held. */
  get size(): number {
    return this.held.size;
  }

  /**
   * Drops every occupant. DELTA-25: a client may skip any part of the stream unread if it also
   * drops its mirror: its next acknowledgement then reports the empty set's digest, and the server
   * replies with a full baseline..
   */
  clear(): void {
    this.held.clear();
    this.set.clear();
  }

  /** The digest of the keys held now. */
  digest(): bigint {
    return this.set.digest();
  }

  /** How the digest held compares with `serverDigest`, what the server believes is held. */
  agreementWith(serverDigest: bigint): Agreement {
    return compareDigests(serverDigest, this.digest());
  }

  /**
   * How this mirror differs from the server's key set (a digest says only that the two differ; this
   * says how).
   */
  divergenceFrom(serverKeys: Iterable<number>): Divergence {
    const theirs = new Set(serverKeys);
    const mine = new Set(this.keys());
    const extra = [...mine].filter((k) => !theirs.has(k)).sort((a, b) => a - b);
    const missing = [...theirs].filter((k) => !mine.has(k)).sort((a, b) => a - b);
    return { extra: extra.map(decodeSlotKey), missing: missing.map(decodeSlotKey) };
  }

  /** What arrived, for the acknowledgement. */
  get acks(): AckWindow {
    return this.window;
  }

  /** The newest sequence applied. */
  get applied(): bigint | undefined {
    return this.appliedSeq;
  }

  /** The ack to send now: the window and the digest held; `undefined` before any packet. */
  ack(): AckFrame | undefined {
    const e = this.window.encode();
    return e === undefined ? undefined : { newest: e[0], mask: e[1], digest: this.digest() };
  }

  /** How many occupants applying `frame` would leave held (an upper bound when within). */
  private wouldHold(frame: PlanFrame, full: boolean): number {
    const base = full ? 0 : this.held.size;
    if (base + frame.entered.length <= this.limits.maxKeys) {
      return base + frame.entered.length;
    }
    // Counted as apply goes: retractions of an occupant held free its slot, then each arrival
    // takes a slot not held (one per slot, however many generations name it).
    const freed = new Set<number>();
    if (!full) {
      for (const key of frame.left) {
        const k = this.normalise(decodeSlotKey(key));
        if (this.held.get(k.index) === k.generation) {
          freed.add(k.index);
        }
      }
    }
    const taken = new Set<number>();
    let would = base - freed.size;
    for (const key of frame.entered) {
      const index = this.normalise(decodeSlotKey(key)).index;
      const occupied = !full && this.held.has(index) && !freed.has(index);
      if (!occupied && !taken.has(index)) {
        taken.add(index);
        would += 1;
      }
    }
    return would;
  }

  /**
   * Applies a received plan (`fullFlag` the schema's FULL_BASELINE bit): begin, retractions,
   * arrivals. A plan that would leave more than {@link MirrorLimits.maxKeys} held is refused before
   * anything is touched (SessionError `limit`): neither applied nor recorded as arrived, as if the
   * network had lost it, which DELTA-12's opposite baselines heal.
   */
  apply(frame: PlanFrame, fullFlag: number): Applied {
    const full = (frame.flags & fullFlag) !== 0;
    if (!this.isStale(frame.sequence)) {
      const would = this.wouldHold(frame, full);
      if (would > this.limits.maxKeys) {
        throw new SessionError(
          "limit",
          `plan ${frame.sequence} would leave the mirror holding ${would} keys, more than ${this.limits.maxKeys}`,
        );
      }
    }
    const out: Applied = { applied: false, cleared: full, entered: 0, left: 0, staleRefs: 0 };
    if (!this.begin(frame.sequence, full)) {
      out.cleared = false;
      return out;
    }
    out.applied = true;
    const before = this.staleRefs;
    for (const key of frame.left) {
      if (this.remove(decodeSlotKey(key))) {
        out.left += 1;
      }
    }
    out.staleRefs = this.staleRefs - before;
    for (const key of frame.entered) {
      this.insertWithinLimits(this.normalise(decodeSlotKey(key)));
      out.entered += 1;
    }
    return out;
  }
}

/** Which state the differences are computed against (DELTA-10). */
export type RecoveryPolicy = "naive" | "ack_recovery";

/** What to send this round (DELTA-1, DELTA-12). */
export interface DeltaPlan {
  /** The subscriber must clear its mirror first. */
  fullBaseline: boolean;
  /** The sequence the differences were computed against, if any. */
  baselineSeq: bigint | undefined;
  /** Keys to hold, ascending. */
  entered: number[];
  /** Keys to drop, ascending. */
  left: number[];
}

interface SentState {
  seq: bigint;
  state: Set<number>;
  standalone: boolean;
}

interface AckedState {
  seq: bigint;
  state: Set<number>;
  digest: bigint;
}

interface Flow {
  stalledAfter: number;
  keepaliveEvery: number;
  lastAck: number | undefined;
  lastKeepalive: number | undefined;
}

const ascending = (a: number, b: number): number => a - b;

/**
 * One subscriber's bookkeeping (DELTA-9 to DELTA-19): what it was sent, what it has acknowledged,
 * and so what to send next. At most `history` sent states are kept: DELTA-13: a baseline older than
 * the history cannot be re-derived, so it forces a full rebuild rather than a wrong difference.
 */
export class DeltaBaseline {
  private readonly policy: RecoveryPolicy;
  private readonly history: number;
  private sent: SentState[] = [];
  private ackedState: AckedState | undefined = undefined;
  private historyLost = false;
  private lastSent: [bigint, Set<number>] | undefined = undefined;
  private pending: "nothing" | "fresh" | "rebuild" = "fresh";
  private rebuilds = 0;
  private window = new AckWindow();
  private readonly flow: Flow | undefined;
  private readonly driftCheck: boolean;

  /** A subscriber keeping `history` sent states (at least 1); flow control when given. */
  constructor(
    history: number,
    policy: RecoveryPolicy = "ack_recovery",
    flow?: { stalledAfter: number; keepaliveEvery: number },
    driftCheck = true,
  ) {
    this.history = Math.max(1, history);
    this.policy = policy;
    this.driftCheck = driftCheck;
    this.flow =
      flow === undefined
        ? undefined
        : {
            stalledAfter: flow.stalledAfter,
            keepaliveEvery: Math.max(1, flow.keepaliveEvery),
            lastAck: undefined,
            lastKeepalive: undefined,
          };
  }

  /** Whether the subscriber is silent for more than `stalledAfter` (never without flow). */
  stalled(now: number): boolean {
    const f = this.flow;
    return (
      f !== undefined && f.lastAck !== undefined && Math.max(0, now - f.lastAck) > f.stalledAfter
    );
  }

  /**
   * Whether to plan and send this round: DELTA-18: a stalled subscriber gets one packet every
   * `keepalive_every` until it acknowledges again, and a joiner is not born stalled.
   */
  shouldSend(now: number): boolean {
    const stalled = this.stalled(now);
    const f = this.flow;
    if (f === undefined) {
      return true;
    }
    if (f.lastAck === undefined) {
      f.lastAck = now;
      return true;
    }
    if (!stalled) {
      return true;
    }
    if (f.lastKeepalive !== undefined && Math.max(0, now - f.lastKeepalive) < f.keepaliveEvery) {
      return false;
    }
    f.lastKeepalive = now;
    return true;
  }

  /** Forgets everything; the next plan is a full baseline. Call when a subscriber takes the slot. */
  reset(): void {
    this.newEpoch();
    this.pending = "fresh";
    if (this.flow !== undefined) {
      this.flow.lastAck = undefined;
      this.flow.lastKeepalive = undefined;
    }
  }

  /** Forces the next plan to be a full baseline in a new epoch, counted as a rebuild. */
  requestFullBaseline(): void {
    this.rebuild();
  }

  /** What to send given the visible set `current`; `seq` numbers the packet (consecutively). */
  plan(current: ReadonlySet<number>, seq: bigint): DeltaPlan {
    const recovering = this.policy === "ack_recovery";
    if (recovering && this.historyLost) {
      this.rebuild();
    }
    const pending = this.pending;
    this.pending = "nothing";
    if (pending === "rebuild") {
      this.rebuilds += 1;
    }
    const unknown = recovering && this.ackedState === undefined;
    const plan: DeltaPlan = { fullBaseline: false, baselineSeq: undefined, entered: [], left: [] };
    let standalone: boolean;
    const acked = this.ackedState;
    if (pending !== "nothing" || unknown) {
      plan.fullBaseline = true;
      plan.entered = [...current].sort(ascending);
      standalone = true;
    } else if (acked !== undefined && recovering) {
      // DELTA-12: sends are computed against the smallest state the subscriber can hold (the
      // acknowledged state intersected with everything sent after it), retractions against the
      // largest (the acknowledged state unioned with everything sent after it).
      const least = new Set(acked.state);
      const most = new Set(acked.state);
      for (const s of this.sent) {
        if (s.seq > acked.seq) {
          for (const k of least) {
            if (!s.state.has(k)) {
              least.delete(k);
            }
          }
          for (const k of s.state) {
            most.add(k);
          }
        }
      }
      plan.baselineSeq = acked.seq;
      plan.entered = [...current].filter((k) => !least.has(k)).sort(ascending);
      plan.left = [...most].filter((k) => !current.has(k)).sort(ascending);
      standalone = true;
    } else if (this.lastSent !== undefined) {
      // Naive: against the last state sent, as if every packet arrived.
      const [lastSeq, last] = this.lastSent;
      plan.baselineSeq = lastSeq;
      plan.entered = [...current].filter((k) => !last.has(k)).sort(ascending);
      plan.left = [...last].filter((k) => !current.has(k)).sort(ascending);
      standalone = false;
    } else {
      plan.fullBaseline = true;
      plan.entered = [...current].sort(ascending);
      standalone = true;
    }
    this.sent.push({ seq, state: new Set(current), standalone });
    while (this.sent.length > this.history) {
      const old = this.sent.shift();
      if (old !== undefined && this.ackedState !== undefined && old.seq > this.ackedState.seq) {
        this.historyLost = true;
      }
    }
    this.lastSent = [seq, new Set(current)];
    return plan;
  }

  /**
   * The return path: the subscriber's window and digest. The frontier steps to the newest
   * standalone packet sent since the acknowledged state that the window reports (DELTA-14); the
   * digest is compared only when the frontier has reached the newest packet reported (DELTA-15),
   * and a disagreement makes the next plan a full rebuild. A no-op under the naive policy.
   */
  observeAck(newest: bigint, mask: bigint, digest: bigint): Agreement {
    if (this.policy !== "ack_recovery") {
      return { kind: "unchecked" };
    }
    const window = AckWindow.fromEncoded(newest, mask);
    this.window = window;
    let reached: SentState | undefined;
    for (let i = this.sent.length - 1; i >= 0; i--) {
      const s = this.sent[i]!;
      if (s.standalone && window.contains(s.seq)) {
        reached = s;
        break;
      }
    }
    if (reached !== undefined) {
      const seq = reached.seq;
      this.ackedState = {
        seq,
        state: new Set(reached.state),
        digest: SetDigest.fromKeys(reached.state).digest(),
      };
      this.sent = this.sent.filter((s) => s.seq > seq);
    }
    const a = this.ackedState;
    // DELTA-16: every digest is compared (the empty set's too) unless the check is off.
    const agreement: Agreement =
      a !== undefined && this.driftCheck && a.seq === (newest & MASK64)
        ? compareDigests(a.digest, digest)
        : { kind: "unchecked" };
    if (agreement.kind === "disagrees") {
      this.rebuild();
    }
    return agreement;
  }

  /**
   * {@link DeltaBaseline.observeAck} plus the arrival time for flow control: an ack from a
   * stalled subscriber is "**the resume signal**, and it starts a fresh epoch".
   */
  observeAckAt(newest: bigint, mask: bigint, digest: bigint, now: number): Agreement {
    const resuming = this.stalled(now);
    if (resuming) {
      this.reset();
    }
    if (this.flow !== undefined) {
      this.flow.lastAck = now;
    }
    return resuming ? { kind: "unchecked" } : this.observeAck(newest, mask, digest);
  }

  /** Full rebuilds needed so far (a new subscriber's first full baseline is not one). */
  get fullRebuilds(): number {
    return this.rebuilds;
  }

  /** Packets sent since the acknowledged state and not in the last window. */
  get unacked(): number {
    const after = this.ackedState?.seq;
    return this.sent.filter(
      (s) => (after === undefined || s.seq > after) && !this.window.contains(s.seq),
    ).length;
  }

  /** The newest sequence the subscriber acknowledged reaching the state of. */
  get ackedSeq(): bigint | undefined {
    return this.ackedState?.seq;
  }

  /** Sent states held now (at most the history length). */
  get heldStates(): number {
    return this.sent.length;
  }

  private rebuild(): void {
    this.newEpoch();
    this.pending = "rebuild";
  }

  // DELTA-17: a new epoch drops the acknowledged state, the last sent and the history.
  private newEpoch(): void {
    this.sent = [];
    this.ackedState = undefined;
    this.historyLost = false;
    this.lastSent = undefined;
    this.window = new AckWindow();
  }
}

/** Throws a SessionError (`decode`) holding the codec's error when `f` throws. */
function decoding<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new SessionError("decode", e instanceof Error ? e.message : String(e), e);
  }
}

/** What a `delta_ack` left the delta server at. */
export interface DeltaAckReport {
  /** The newest plan acknowledged. */
  readonly ackedSeq: bigint | undefined;
  /** Plans sent and not acknowledged. */
  readonly unacked: number;
  /** Full baselines rebuilt. */
  readonly fullRebuilds: number;
  /** Whether the connection is stalled. */
  readonly stalled: boolean;
}

/**
 * The server's half: one subscriber's {@link DeltaBaseline}. A tick takes the keys visible now
 * and, when `shouldSend(now.ms)`, sends one unreliable plan numbered from 1 upwards; a frame is
 * a `delta_ack`, observed at `now.ms`.
 */
export class DeltaServer implements SessionHalf<ReadonlySet<number>, DeltaAckReport> {
  /** The machine, for its lower-level methods. */
  readonly baseline: DeltaBaseline;
  private readonly schema: DeltaSchema;
  private seq = 0n;
  private readonly out = new Outbox();

  /** The half over `baseline`. */
  constructor(schema: DeltaSchema, baseline: DeltaBaseline) {
    this.schema = schema;
    this.baseline = baseline;
  }

  handleFrame(now: Now, frame: string, bytes: Uint8Array): DeltaAckReport {
    expectFrame(frame, this.schema.ackFrame);
    const ack = decoding(() => this.schema.decodeAck(bytes));
    this.baseline.observeAckAt(ack.newest, ack.mask, ack.digest, now.ms);
    return {
      ackedSeq: this.baseline.ackedSeq,
      unacked: this.baseline.unacked,
      fullRebuilds: this.baseline.fullRebuilds,
      stalled: this.baseline.stalled(now.ms),
    };
  }

  handleTick(now: Now, visible: ReadonlySet<number>): void {
    if (this.baseline.shouldSend(now.ms)) {
      this.seq += 1n;
      const p = this.baseline.plan(visible, this.seq);
      const frame: PlanFrame = {
        flags:
          (p.fullBaseline ? this.schema.fullBaseline : 0) |
          (p.baselineSeq !== undefined ? this.schema.baseline : 0),
        sequence: this.seq,
        baseline_seq: p.baselineSeq,
        entered: p.entered,
        left: p.left,
      };
      this.push(this.schema.planFrame, this.schema.encodePlan(frame));
    }
  }

  private push(frame: string, bytes: Uint8Array): void {
    this.out.push({ frame, bytes, reliable: false });
  }

  pollTransmit(): Transmit | undefined {
    return this.out.poll();
  }
}

/**
 * The client's half: a {@link DeltaMirror}. A frame is a `delta_plan`, applied (a plan past the
 * mirror's limits is refused whole, unacknowledged: SessionError `limit`); its ack is polled.
 */
export class DeltaClient implements SessionHalf<void, Applied> {
  /** The machine, for its lower-level methods. */
  readonly mirror: DeltaMirror;
  private readonly schema: DeltaSchema;
  private readonly out = new Outbox();

  /** The half over `mirror`. */
  constructor(schema: DeltaSchema, mirror: DeltaMirror = new DeltaMirror()) {
    this.schema = schema;
    this.mirror = mirror;
  }

  handleFrame(_now: Now, frame: string, bytes: Uint8Array): Applied {
    expectFrame(frame, this.schema.planFrame);
    const plan = decoding(() => this.schema.decodePlan(bytes));
    const applied = this.mirror.apply(plan, this.schema.fullBaseline);
    const ack = this.mirror.ack();
    if (ack !== undefined) {
      this.out.push({
        frame: this.schema.ackFrame,
        bytes: this.schema.encodeAck(ack),
        reliable: false,
      });
    }
    return applied;
  }

  handleTick(_now: Now, _input: void): void {}

  pollTransmit(): Transmit | undefined {
    return this.out.poll();
  }
}

/**
 * Which free slot {@link SlotAllocator.allocate} hands out next (DELTA-8): `lowest_free`, the
 * lowest free index, used before or not; or `fifo`, first freed first reused, and only while more
 * than `quarantine` freed slots wait (below that a never-used index is handed out while the
 * capacity allows; past it the oldest freed slot is reused anyway).
 */
export type ReusePolicy =
  { readonly kind: "lowest_free" } | { readonly kind: "fifo"; readonly quarantine: number };

interface AllocSlot {
  generation: number;
  live: boolean;
  order: number;
}

/**
 * Hands out SlotKeys from `capacity` slots, one live occupant per slot, a slot's generation bumped
 * each time it is reused (DELTA-3: a retraction must name the occupant the subscriber holds, not
 * the slot's current one). The first occupant of a slot is generation 0; every reuse the next,
 * wrapping at 65,535. Memory is bounded by the capacity.
 */
export class SlotAllocator {
  private readonly policy: ReusePolicy;
  private readonly capacity: number;
  private readonly slots: AllocSlot[] = [];
  /** Free slots that had an occupant, as `[order, index]`, ascending. */
  private freed: [number, number][] = [];
  /** Slots below `slots.length` that never had an occupant, ascending. */
  private unused: number[] = [];
  private stamp = 0;
  private liveCount = 0;

  /** An allocator of slots `0..capacity` (a u32), none occupied. */
  constructor(capacity: number, policy: ReusePolicy = { kind: "lowest_free" }) {
    this.capacity = capacity >>> 0;
    this.policy = policy;
  }

  /** How many slots are occupied. */
  get size(): number {
    return this.liveCount;
  }

  private fresh(): number | undefined {
    const first = this.unused[0];
    if (first !== undefined) {
      return first;
    }
    return this.slots.length < this.capacity ? this.slots.length : undefined;
  }

  /** A new occupant in the slot the policy picks; `undefined` when every slot is occupied. */
  allocate(): SlotKey | undefined {
    const fresh = this.fresh();
    const oldest = this.freed[0]?.[1];
    let index: number | undefined;
    if (this.policy.kind === "lowest_free") {
      index = oldest === undefined ? fresh : fresh === undefined ? oldest : Math.min(oldest, fresh);
    } else {
      const waiting = this.freed.length > this.policy.quarantine;
      index = waiting || fresh === undefined ? oldest : fresh;
    }
    return index === undefined ? undefined : this.allocateAt(index);
  }

  /** A new occupant in slot `index`; `undefined` when outside the capacity or occupied. */
  allocateAt(index: number): SlotKey | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.capacity) {
      return undefined;
    }
    if (index >= this.slots.length) {
      for (let i = this.slots.length; i < index; i++) {
        this.unused.push(i);
      }
      while (this.slots.length <= index) {
        this.slots.push({ generation: 0, live: false, order: 0 });
      }
      // The slot itself has never had an occupant: its first is generation 0.
      this.slots[index]!.live = true;
    } else {
      const slot = this.slots[index]!;
      if (slot.live) {
        return undefined;
      }
      const u = this.unused.indexOf(index);
      if (u >= 0) {
        this.unused.splice(u, 1);
        slot.generation = 0;
      } else {
        const f = this.freed.findIndex(([o, i]) => o === slot.order && i === index);
        if (f >= 0) {
          this.freed.splice(f, 1);
        }
        // DELTA-3: a respawn in the same slot must be a different key.
        slot.generation = (slot.generation + 1) & 0xffff;
      }
      slot.live = true;
    }
    this.liveCount += 1;
    return { index, generation: this.slots[index]!.generation };
  }

  /** Frees the occupant `key` names; `false`, changing nothing, when it is not live. */
  free(key: SlotKey): boolean {
    if (!this.isLive(key)) {
      return false;
    }
    const order = this.policy.kind === "lowest_free" ? key.index : ++this.stamp;
    const slot = this.slots[key.index]!;
    slot.live = false;
    slot.order = order;
    let at = this.freed.findIndex(([o, i]) => o > order || (o === order && i > key.index));
    if (at < 0) {
      at = this.freed.length;
    }
    this.freed.splice(at, 0, [order, key.index]);
    this.liveCount -= 1;
    return true;
  }

  /** Whether `key` is the live occupant of its slot. */
  isLive(key: SlotKey): boolean {
    const s = this.slots[key.index];
    return s !== undefined && s.live && s.generation === key.generation;
  }

  /** The live occupant of slot `index`, if any. */
  occupant(index: number): SlotKey | undefined {
    const s = this.slots[index];
    return s !== undefined && s.live ? { index, generation: s.generation } : undefined;
  }

  /** Every live occupant, ascending by slot. */
  live(): SlotKey[] {
    const out: SlotKey[] = [];
    this.slots.forEach((s, index) => {
      if (s.live) {
        out.push({ index, generation: s.generation });
      }
    });
    return out;
  }
}
