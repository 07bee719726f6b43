/**
 * The one sans-IO shape (GEN-4) of every session half, as the Rust codec's `session::SessionHalf`:
 * input goes in with the time as an argument ({@link SessionHalf.handleFrame} for a peer's frame,
 * {@link SessionHalf.handleTick} for a tick passing), output is returned (a report of what the
 * frame did) or polled ({@link SessionHalf.pollTransmit}, until `undefined`). Nothing here opens a
 * socket or reads a clock: a browser's page or a native client's loop owns both.
 */

/** When an input happens: the server tick and milliseconds on the session's own clock. */
export interface Now {
  /** The server tick: for a tick the tick passing, for a frame the newest tick passed. */
  readonly tick: number;
  /** Milliseconds on the session's clock. */
  readonly ms: number;
}

/** A frame a half wants sent. */
export interface Transmit {
  /** The frame's name in the spec (`acked`, `ack`, `datagram_ack`, ...). */
  readonly frame: string;
  /** Its bytes. */
  readonly bytes: Uint8Array;
  /** Whether it goes on the reliable, ordered channel. */
  readonly reliable: boolean;
}

/** Why a half refused an input, as the Rust codec's `SessionError` variants. */
export type SessionErrorKind =
  "decode" | "unexpected_frame" | "encode" | "limit" | "world" | "tick_range" | "no_world";

/** A half's refusal of an input; `cause` holds the codec's own error where there is one. */
export class SessionError extends Error {
  /** What went wrong. */
  readonly kind: SessionErrorKind;
  /** The error that caused it (a `DecodeError`, an `EncodeError`), when there is one. */
  readonly cause: unknown;

  constructor(kind: SessionErrorKind, message: string, cause?: unknown) {
    super(message);
    this.name = "SessionError";
    this.kind = kind;
    this.cause = cause;
  }
}

/** One half of a session, client or server: the one shape every machine is driven through. */
export interface SessionHalf<Tick, Report> {
  /** The peer's frame `frame` (its name in the spec) arrives at `now`; throws a SessionError. */
  handleFrame(now: Now, frame: string, bytes: Uint8Array): Report;
  /** Tick `now.tick` passes with `input`; what the half sends because of it is polled. */
  handleTick(now: Now, input: Tick): void;
  /** The next frame to send, in order; `undefined` when there is none (until the next input). */
  pollTransmit(): Transmit | undefined;
}

/**
 * The most frames a half holds for {@link SessionHalf.pollTransmit}. A client answers every frame
 * with an ack, so a hostile server sending faster than the caller polls would grow the queue
 * without end; past the limit the oldest unreliable frame is dropped, as the lossy transport may
 * drop it. Reliable frames come from the half's own ticks and are never dropped.
 */
export const MAX_QUEUED = 1024;

/** The frames a half has yet to hand out, at most {@link MAX_QUEUED} unreliable ones. */
export class Outbox {
  private queue: Transmit[] = [];
  private head = 0;

  /** Queues `t`, dropping the oldest unreliable frame first when the queue is full (GEN-8). */
  push(t: Transmit): void {
    if (this.queue.length - this.head >= MAX_QUEUED) {
      for (let i = this.head; i < this.queue.length; i++) {
        if (!this.queue[i]!.reliable) {
          this.queue.splice(i, 1);
          break;
        }
      }
    }
    this.queue.push(t);
  }

  /** The oldest queued frame, removed; `undefined` when there is none. */
  poll(): Transmit | undefined {
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

  /** How many frames are queued. */
  get length(): number {
    return this.queue.length - this.head;
  }
}

/** `tick` as the wire's u32 tick; throws a SessionError (`tick_range`) past 2^32 - 1. */
export function tick32(tick: number): number {
  if (!Number.isInteger(tick) || tick < 0 || tick > 0xffffffff) {
    throw new SessionError("tick_range", "ticks are u32 on the wire");
  }
  return tick;
}

/** Throws a SessionError (`unexpected_frame`) unless `frame` is `name`. */
export function expectFrame(frame: string, name: string): void {
  if (frame !== name) {
    throw new SessionError("unexpected_frame", `unexpected frame \`${frame}\``);
  }
}
