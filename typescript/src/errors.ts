// The error taxonomy every ackwire codec shares (conformance/PROTOCOL.md), and field paths.
//
// A reader or writer keeps no path while it works: an error is made with an empty one, and
// each record, list and union it unwinds through puts the field, index or variant it was in
// at the front of it ({@link within}), so that only a fault pays for naming where it is.

/** A kind of the error taxonomy every ackwire codec shares (conformance/PROTOCOL.md). */
export type ErrorKind =
  | "truncated"
  | "bad_constant"
  | "reserved_bit"
  | "non_canonical_varint"
  | "over_width"
  | "count_too_large"
  | "trailing_bytes"
  | "invalid_condition"
  | "unknown_tag"
  | "non_finite"
  | "not_ascending"
  | "non_canonical";

/** One step of a field path: a field's name, or an element's index in a list. */
export type Segment = string | number;

/** A field path as text, outermost first: `changes[3].mask`. */
export function pathText(path: readonly Segment[]): string {
  let out = "";
  for (const s of path) {
    if (typeof s === "number") {
      out += `[${s}]`;
    } else if (s !== "") {
      out += out === "" ? s : `.${s}`;
    }
  }
  return out;
}

/** `path` (a path as text) inside the field or element `segment`: `segment` put in front. */
export function pathWithin(segment: Segment, path: string): string {
  const head = typeof segment === "number" ? `[${segment}]` : segment;
  if (path === "" || head === "") {
    return head + path;
  }
  return path.startsWith("[") ? head + path : `${head}.${path}`;
}

/**
 * `e` with `segment` put in front of its path, when it is a {@link DecodeError} or an
 * {@link EncodeError}: what a record (the field it was in), a list (the element's index) or
 * a union (its variant) does to an error unwinding through it, before throwing it on. Any
 * other exception is returned as it is.
 */
export function within(e: unknown, segment: Segment): unknown {
  if (e instanceof DecodeError || e instanceof EncodeError) {
    e.within(segment);
  }
  return e;
}

function decodeMessage(kind: ErrorKind, offset: number, bit: number | undefined, path: string) {
  const at = bit === undefined ? `byte ${offset}` : `byte ${offset} (bit ${bit})`;
  return `${kind} at ${at}${path === "" ? "" : `, field ${path}`}`;
}

function encodeMessage(kind: ErrorKind, path: string) {
  return `cannot encode: ${kind}${path === "" ? "" : ` in ${path}`}`;
}

/** Why bytes could not be decoded, and where (CHECK-2). */
export class DecodeError extends Error {
  /** What went wrong. */
  readonly kind: ErrorKind;
  /** Byte offset of the fault from the start of the frame. */
  readonly offset: number;
  /** Inside a bit-packed body: the bit offset of the fault from the start of the frame. */
  readonly bit: number | undefined;
  /** The field being read (`changes[3].mask`); empty for the frame as a whole. */
  get path(): string {
    return this.at;
  }

  private at: string;

  constructor(kind: ErrorKind, offset: number, bit: number | undefined, path = "") {
    super(decodeMessage(kind, offset, bit, path));
    this.name = "DecodeError";
    this.kind = kind;
    this.offset = offset;
    this.bit = bit;
    this.at = path;
  }

  /** Puts `segment` in front of the path, as the error unwinds out of it; see {@link within}. */
  within(segment: Segment): this {
    this.at = pathWithin(segment, this.at);
    this.message = decodeMessage(this.kind, this.offset, this.bit, this.at);
    return this;
  }
}

/** Why a value could not be encoded: it is not one the canonical decoder would accept. */
export class EncodeError extends Error {
  /** What is wrong with the value. */
  readonly kind: ErrorKind;
  /** The field at fault. */
  get path(): string {
    return this.at;
  }

  private at: string;

  constructor(kind: ErrorKind, path = "") {
    super(encodeMessage(kind, path));
    this.name = "EncodeError";
    this.kind = kind;
    this.at = path;
  }

  /** Puts `segment` in front of the path, as the error unwinds out of it; see {@link within}. */
  within(segment: Segment): this {
    this.at = pathWithin(segment, this.at);
    this.message = encodeMessage(this.kind, this.at);
    return this;
  }
}

/** Why a value in the JSON form could not be read. */
export class JsonError extends Error {
  /** Where in the value the fault is (`changes[3].mask`). */
  readonly path: string;

  constructor(message: string, path: string) {
    super(path === "" ? message : `${path}: ${message}`);
    this.name = "JsonError";
    this.path = path;
  }
}
