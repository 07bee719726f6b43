// The error taxonomy every ackwire codec shares (conformance/PROTOCOL.md), and field paths.

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
  | "not_ascending";

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

/** Why bytes could not be decoded, and where (DESIGN.md section 3). */
export class DecodeError extends Error {
  /** What went wrong. */
  readonly kind: ErrorKind;
  /** Byte offset of the fault from the start of the frame. */
  readonly offset: number;
  /** Inside a bit-packed body: the bit offset of the fault from the start of the frame. */
  readonly bit: number | undefined;
  /** The field being read (`changes[3].mask`); empty for the frame as a whole. */
  readonly path: string;

  constructor(kind: ErrorKind, offset: number, bit: number | undefined, path: string) {
    const at = bit === undefined ? `byte ${offset}` : `byte ${offset} (bit ${bit})`;
    super(`${kind} at ${at}${path === "" ? "" : `, field ${path}`}`);
    this.name = "DecodeError";
    this.kind = kind;
    this.offset = offset;
    this.bit = bit;
    this.path = path;
  }
}

/** Why a value could not be encoded: it is not one the canonical decoder would accept. */
export class EncodeError extends Error {
  /** What is wrong with the value. */
  readonly kind: ErrorKind;
  /** The field at fault. */
  readonly path: string;

  constructor(kind: ErrorKind, path: string) {
    super(`cannot encode: ${kind}${path === "" ? "" : ` in ${path}`}`);
    this.name = "EncodeError";
    this.kind = kind;
    this.path = path;
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
