/**
 * The two session halves of acked snapshots (`docs/spec/acked.md`) over any
 * {@link AckedSchema}, as the Rust codec's `session::AckedClient` and `session::AckedServer`:
 * {@link AckedClientHalf}, the facade a browser or native client drives, and
 * {@link AckedServerHalf}, which a game's {@link AckedPresenter} feeds. A binding `ackwire gen
 * --lang ts` writes for a `state` gives the schema (the reference protocol's `Reference`, kind
 * 6, and `PackedReference`, kind 12); what each client sees of the world (tiers, refresh, a
 * client's own entities) is the presenter's, the game's own code.
 *
 * Sans-IO: the caller owns the socket and the clock; poll `pollTransmit` after each call.
 */

import { DecodeError, EncodeError } from "../errors.js";
import {
  AckedDecoder,
  AckedEncoder,
  type AckedSchema,
  type AckVerdict,
  AckWriter,
  type Delivery,
  type EncoderCounters,
  type InputSink,
  type ServerState,
} from "./acked.js";
import {
  type Now,
  Outbox,
  SessionError,
  type SessionHalf,
  type Transmit,
  expectFrame,
  tick32,
} from "./half.js";

/**
 * The client's half of acked snapshots: an AckedDecoder and the kind 7 AckWriter. A frame is
 * the schema's (its FRAME_NAME), reported as its {@link Delivery}; a tick takes the player's
 * input (or none) and sends one ack (the schema's ACK_NAME) acknowledging the newest frame
 * applied, with the inputs `last_seq` does not cover yet, KEYFRAME_REQUEST set after a failed
 * check until a keyframe applies.
 */
export class AckedClientHalf<R, C, E, I> implements SessionHalf<I | undefined, Delivery<E>> {
  /** The decoder, for its lower-level methods (its counters, its held states). */
  readonly decoder: AckedDecoder<R, C, E, I>;
  private readonly schema: AckedSchema<R, C, E, I>;
  private readonly writer: AckWriter<I>;
  private readonly out = new Outbox();

  /** A fresh client of `schema`'s frames; the writer repeats at most `keep` inputs (1 to 255). */
  constructor(schema: AckedSchema<R, C, E, I>, keep = 16) {
    this.schema = schema;
    this.decoder = new AckedDecoder(schema);
    this.writer = new AckWriter<I>(keep);
  }

  /** The server's frame arrives; any name but the schema's frames' is a SessionError. */
  handleFrame(_now: Now, frame: string, bytes: Uint8Array): Delivery<E> {
    expectFrame(frame, this.schema.FRAME_NAME);
    // The writer stops repeating what the frame's `last_seq` covers at the next tick.
    return this.decoder.deliver(bytes);
  }

  /** A client tick: queues one ack frame, with `input` added to those repeated. */
  handleTick(_now: Now, input?: I): void {
    this.writer.confirm(this.decoder.lastSeq());
    if (input !== undefined) {
      this.writer.push(input);
    }
    const ack = this.writer.frame(this.decoder.ackTick(), this.decoder.keyframeWanted());
    let bytes: Uint8Array;
    try {
      bytes = this.schema.encodeAck(ack);
    } catch (e) {
      throw new SessionError("encode", (e as Error).message, e);
    }
    this.out.push({ frame: this.schema.ACK_NAME, bytes, reliable: false });
  }

  /** The next frame to send, or `undefined`. */
  pollTransmit(): Transmit | undefined {
    return this.out.poll();
  }

  /** The FNV-1a 32 of the shown state (the check's value: CHECK-2, CHECK-7). */
  stateHash(): number {
    return this.decoder.stateHash();
  }

  /** The tick of the last frame shown, if any. */
  shownTick(): number | undefined {
    return this.decoder.shown();
  }

  /** How many entities are shown. */
  get shownCount(): number {
    return this.decoder.state().size;
  }

  /** The shown record of `eid` (read-only: it is the decoder's). */
  entity(eid: number): Readonly<R> | undefined {
    return this.decoder.state().get(eid);
  }

  /** Calls `f` with every shown entity, ascending by id, for drawing. */
  forEachShown(f: (eid: number, entity: Readonly<R>) => void): void {
    this.decoder.state().forEach(f);
  }
}

/**
 * What computes each client's S_N from the game's world of type `W` (ACK-17: for each client, the
 * state an ordered client would hold after frame N, as the ordered encoder computes it): the
 * game's policy of who sees what, at which tier, how often.
 */
export interface AckedPresenter<W, R> {
  /** S_N for tick `tick` of `world`: every entity the client holds, ascending by id. */
  present(tick: number, world: W): ServerState<R>;
}

/** What the acked server's world is on a tick. */
export interface AckedTick<W, E> {
  /** The world. */
  readonly world: W;
  /** The tick's new events. */
  readonly events: readonly E[];
}

/** What an ack did to the acked server. */
export interface AckedAckReport {
  /** The encoder's verdict. */
  readonly verdict: AckVerdict;
  /** The acknowledged base now. */
  readonly base: number | undefined;
  /** The newest input sequence received. */
  readonly lastSeq: number;
  /** The encoder's counters. */
  readonly counters: Readonly<EncoderCounters>;
}

/**
 * The server's half of acked snapshots: an {@link AckedPresenter} and an acked encoder over an
 * input sink. A tick takes the world and the tick's events and queues one frame (the schema's
 * FRAME_NAME; reliable over RELIABLE_ABOVE bytes); a frame is the client's ack, judged against
 * the tick of `now`.
 */
export class AckedServerHalf<W, R, C, E, I> implements SessionHalf<
  AckedTick<W, E>,
  AckedAckReport
> {
  /** The client's view. */
  readonly presenter: AckedPresenter<W, R>;
  /** The encoder, for its lower-level methods. */
  readonly encoder: AckedEncoder<R, C, E, I>;
  private readonly schema: AckedSchema<R, C, E, I>;
  private readonly out = new Outbox();

  /** The half of `schema`'s frames over `presenter`, its encoder's inputs going to `inputs`. */
  constructor(
    schema: AckedSchema<R, C, E, I>,
    presenter: AckedPresenter<W, R>,
    inputs: InputSink<I>,
  ) {
    this.schema = schema;
    this.presenter = presenter;
    this.encoder = new AckedEncoder(schema, inputs);
  }

  /** The client's ack arrives; an undecodable one is a SessionError of kind `decode`. */
  handleFrame(now: Now, frame: string, bytes: Uint8Array): AckedAckReport {
    expectFrame(frame, this.schema.ACK_NAME);
    let verdict: AckVerdict;
    try {
      verdict = this.encoder.receive(now.tick, bytes);
    } catch (e) {
      if (e instanceof DecodeError) {
        throw new SessionError("decode", e.message, e);
      }
      throw e;
    }
    return {
      verdict,
      base: this.encoder.acked(),
      lastSeq: this.encoder.lastSeq(),
      counters: { ...this.encoder.counters },
    };
  }

  /** Tick `now.tick` passes: presents the world and queues its frame. */
  handleTick(now: Now, input: AckedTick<W, E>): void {
    const tick = tick32(now.tick);
    const state = this.presenter.present(tick, input.world);
    let sent;
    try {
      sent = this.encoder.encode(tick, state, input.events);
    } catch (e) {
      if (e instanceof EncodeError) {
        throw new SessionError("encode", e.message, e);
      }
      throw e;
    }
    this.out.push({ frame: this.schema.FRAME_NAME, bytes: sent.bytes, reliable: sent.reliable });
  }

  /** The next frame to send, or `undefined`. */
  pollTransmit(): Transmit | undefined {
    return this.out.poll();
  }
}
