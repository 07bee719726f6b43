// The testee protocol (conformance/PROTOCOL.md) for any generated codec: one request line in,
// one reply line out. `ackwire gen --lang ts --testee` writes `testee.ts` beside the codec, which
// binds its frames ({@link TesteeCodec}) and reads standard input; what a reply says is decided
// here, once, for every spec. A testee of the reference protocol adds its session halves
// ({@link TesteeSessions}).
//
// The codec is also held to its own promises on every request (WIRE-21): bytes it
// decodes encode back to exactly those bytes, and `encodedLen` is what `encode` writes. A broken
// promise is thrown as an Error, which the reply reports as an `internal_error`.

import type { CodedBasis, CodedFrameCodec } from "./coded.js";
import { DecodeError, EncodeError, JsonError } from "./errors.js";
import { fromHex, fromJson, type JsonValue, toHex, toJson } from "./json.js";

/** The protocol version spoken. */
export const TESTEE_PROTOCOL = 1;

/** A spec's frames by name, as the generated module's by-name functions give them. */
export interface TesteeCodec {
  /** Every frame's name, in declaration order. */
  readonly names: readonly string[];
  /** Decodes `bytes` as the frame `name`; a bad frame throws a {@link DecodeError}. */
  readonly decode: (name: string, bytes: Uint8Array) => unknown;
  /** Encodes a value of the frame `name`; a value no decoder accepts throws an {@link EncodeError}. */
  readonly encode: (name: string, value: unknown) => Uint8Array;
  /** The number of bytes `encode` writes for `value`. */
  readonly encodedLen: (name: string, value: unknown) => number;
  /** A value of the frame `name` in the JSON form. */
  readonly toJson: (name: string, value: unknown) => JsonValue;
  /** A value of the frame `name` from its JSON form; bad JSON throws a {@link JsonError}. */
  readonly fromJson: (name: string, json: unknown) => unknown;
  /**
   * The coded frames (kind 13) by name, the generated module's `CODED_FRAMES`: served beside
   * `names`, each `decode` and `encode` request read against its `basis` member (PROTOCOL.md,
   * "A coded frame's basis"; absent, nothing held).
   */
  readonly coded?: { readonly [name: string]: CodedFrameCodec };
}

/** A reply without its `id`: exactly one of `ok`, `error` and `unimplemented`. */
export type TesteeBody = { ok: JsonValue } | { error: JsonValue } | { unimplemented: string };

/** The session operations of the protocol, which a testee passes to its {@link TesteeSessions}. */
export const SESSION_OPS: ReadonlySet<string> = new Set([
  "open",
  "advance",
  "deliver",
  "take",
  "state_hash",
  "close",
]);

/** The session halves a testee implements, beside its frames. */
export interface TesteeSessions {
  /** The halves `hello` lists. */
  readonly names: readonly string[];
  /** The reply to a session op (one of {@link SESSION_OPS}). */
  readonly answer: (op: string, request: { readonly [key: string]: unknown }) => TesteeBody;
}

/** What {@link Testee.reply} made of one request line. */
export interface TesteeReply {
  /** The reply line, without its newline. */
  readonly text: string;
  /** The request was `bye`: nothing is answered after this reply. */
  readonly bye: boolean;
  /** An exception the codec threw where it must not (its message is in the reply): for a log. */
  readonly fault?: unknown;
}

/** A testee: the replies to request lines, for a codec and, optionally, session halves. */
export class Testee {
  private readonly name: string;
  private readonly codec: TesteeCodec;
  private readonly sessions: TesteeSessions | undefined;

  /** A testee called `name` in `hello`, serving `codec`'s frames and `sessions`' halves. */
  constructor(name: string, codec: TesteeCodec, sessions?: TesteeSessions) {
    this.name = name;
    this.codec = codec;
    this.sessions = sessions;
  }

  /** The reply to one request line. */
  reply(line: string): TesteeReply {
    let request: unknown;
    try {
      request = JSON.parse(line);
    } catch (e) {
      return { text: jsonText({ id: null, ...badRequest((e as Error).message) }), bye: false };
    }
    const fields = (typeof request === "object" && request !== null ? request : {}) as {
      readonly [key: string]: unknown;
    };
    const id = (fields["id"] ?? null) as JsonValue;
    try {
      const [body, bye] = this.answer(fields);
      return { text: jsonText({ id, ...body } as JsonValue), bye };
    } catch (e) {
      const error = { kind: "internal_error", message: String(e) };
      return { text: jsonText({ id, error }), bye: false, fault: e };
    }
  }

  private answer(request: { readonly [key: string]: unknown }): [TesteeBody, boolean] {
    const op = request["op"];
    const frame = typeof request["frame"] === "string" ? request["frame"] : "";
    switch (op) {
      case "hello":
        return [
          {
            ok: {
              name: this.name,
              version: "0.1.0",
              protocol: TESTEE_PROTOCOL,
              frames: [...this.codec.names, ...Object.keys(this.codec.coded ?? {})],
              sessions: [...(this.sessions?.names ?? [])],
            },
          },
          false,
        ];
      case "bye":
        return [{ ok: {} }, true];
      case "decode":
      case "encode": {
        const coded = this.coded(frame);
        if (coded !== undefined) {
          return [this.codedRequest(op, frame, coded, request), false];
        }
        if (!this.codec.names.includes(frame)) {
          return [{ unimplemented: `frame \`${frame}\` is not implemented` }, false];
        }
        return [
          op === "decode"
            ? this.decode(frame, request["hex"])
            : this.encode(frame, request["value"]),
          false,
        ];
      }
      default:
        if (typeof op === "string" && SESSION_OPS.has(op) && this.sessions !== undefined) {
          return [this.sessions.answer(op, request), false];
        }
        return [{ unimplemented: `\`${String(op)}\` is not implemented` }, false];
    }
  }

  private decode(frame: string, hex: unknown): TesteeBody {
    let bytes: Uint8Array;
    try {
      bytes = fromHex(typeof hex === "string" ? hex : "");
    } catch (e) {
      return badRequest((e as Error).message);
    }
    let value: unknown;
    try {
      value = this.codec.decode(frame, bytes);
    } catch (e) {
      if (e instanceof DecodeError) {
        const error: { [key: string]: JsonValue } = {
          kind: e.kind,
          offset: e.offset,
          path: e.path,
        };
        if (e.bit !== undefined) {
          error["bit"] = e.bit;
        }
        return { error };
      }
      throw e;
    }
    const again = this.holdToPromises(frame, value);
    if (toHex(again) !== toHex(bytes)) {
      throw new Error(
        `the ${frame} codec decodes ${toHex(bytes)} but encodes it as ${toHex(again)}`,
      );
    }
    return { ok: { value: this.codec.toJson(frame, value) } };
  }

  private encode(frame: string, json: unknown): TesteeBody {
    let value: unknown;
    try {
      value = this.codec.fromJson(frame, json);
    } catch (e) {
      if (e instanceof JsonError) {
        return badRequest(e.message);
      }
      throw e;
    }
    try {
      return { ok: { hex: toHex(this.holdToPromises(frame, value)) } };
    } catch (e) {
      if (e instanceof EncodeError) {
        return { error: { kind: e.kind, path: e.path } };
      }
      throw e;
    }
  }

  /** The coded frame `name`, if the codec has one. */
  private coded(name: string): CodedFrameCodec | undefined {
    const coded = this.codec.coded;
    return coded !== undefined && Object.prototype.hasOwnProperty.call(coded, name)
      ? coded[name]
      : undefined;
  }

  /**
   * A `decode` or `encode` request of a coded frame, read or written against the records its
   * `basis` member holds (nothing held when absent). A decoded frame is held to encode back to
   * its bytes against the same basis (WIRE-21).
   */
  private codedRequest(
    op: string,
    frame: string,
    coded: CodedFrameCodec,
    request: { readonly [key: string]: unknown },
  ): TesteeBody {
    const type = { record: () => coded.frame };
    let basis: CodedBasis<unknown>;
    try {
      basis = basisFromJson(coded, request["basis"]);
    } catch (e) {
      if (e instanceof JsonError) {
        return badRequest(`basis: ${e.message}`);
      }
      throw e;
    }
    if (op === "decode") {
      let bytes: Uint8Array;
      try {
        bytes = fromHex(typeof request["hex"] === "string" ? request["hex"] : "");
      } catch (e) {
        return badRequest((e as Error).message);
      }
      let value: unknown;
      try {
        value = coded.decode(bytes, basis);
      } catch (e) {
        if (e instanceof DecodeError) {
          return { error: { kind: e.kind, offset: e.offset, path: e.path } };
        }
        throw e;
      }
      const again = coded.encode(value, basis);
      if (toHex(again) !== toHex(bytes)) {
        throw new Error(
          `the ${frame} codec decodes ${toHex(bytes)} but encodes it as ${toHex(again)}`,
        );
      }
      return { ok: { value: toJson(type, value) } };
    }
    let value: unknown;
    try {
      value = fromJson(type, request["value"]);
    } catch (e) {
      if (e instanceof JsonError) {
        return badRequest(e.message);
      }
      throw e;
    }
    try {
      return { ok: { hex: toHex(coded.encode(value, basis)) } };
    } catch (e) {
      if (e instanceof EncodeError) {
        return { error: { kind: e.kind, path: e.path } };
      }
      throw e;
    }
  }

  /** The bytes of `value`, once `encodedLen` has been seen to predict them. */
  private holdToPromises(frame: string, value: unknown): Uint8Array {
    const bytes = this.codec.encode(frame, value);
    const predicted = this.codec.encodedLen(frame, value);
    if (predicted !== bytes.length) {
      throw new Error(
        `the ${frame} codec wrote ${bytes.length} bytes, but encodedLen said ${predicted}`,
      );
    }
    return bytes;
  }
}

/**
 * A coded frame's basis from its JSON form (`{"base": [{"eid", "state"}], "older": [...]}`, each
 * list optional; absent, nothing held): the records by id, read as the frame's state's record.
 * Bad JSON throws a {@link JsonError}.
 */
export function basisFromJson(coded: CodedFrameCodec, json: unknown): CodedBasis<unknown> {
  const held = (key: string): Map<number, unknown> => {
    const out = new Map<number, unknown>();
    if (json === undefined || json === null) {
      return out;
    }
    if (typeof json !== "object" || Array.isArray(json)) {
      throw new JsonError("a basis is an object of `base` and `older`", "");
    }
    const list = (json as { readonly [key: string]: unknown })[key];
    if (list === undefined) {
      return out;
    }
    if (!Array.isArray(list)) {
      throw new JsonError("a list of records", key);
    }
    list.forEach((item: unknown, i: number) => {
      const at = `${key}[${i}]`;
      const o = (typeof item === "object" && item !== null ? item : {}) as {
        readonly [key: string]: unknown;
      };
      const eid = o["eid"];
      if (typeof eid !== "number" || !Number.isInteger(eid) || eid < 0 || eid > 65535) {
        throw new JsonError("a u16 `eid`", at);
      }
      if (out.has(eid)) {
        throw new JsonError(`entity ${eid} twice`, at);
      }
      out.set(eid, fromJson({ record: () => coded.record }, o["state"], [key, i, "state"]));
    });
    return out;
  };
  const base = held("base");
  const older = held("older");
  return { base: (eid) => base.get(eid), older: (eid) => older.get(eid) };
}

function badRequest(message: string): TesteeBody {
  return { error: { kind: "bad_request", message } };
}

/**
 * JSON text of a reply. As `JSON.stringify`, except that a float of -0 keeps its sign (`-0.0`,
 * as the Rust codec prints it), so that a decoded negative zero reads back as one.
 */
export function jsonText(value: JsonValue): string {
  if (typeof value === "number") {
    return Object.is(value, -0) ? "-0.0" : JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map(jsonText).join(",")}]`;
  }
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value);
}
