// The JSON form of conformance/PROTOCOL.md: hex, and values to and from JSON by their layout.

import { type BitSet, bitSetNames, bitSetValue } from "./bits.js";
import { JsonError, pathText, type Segment } from "./errors.js";
import type { SmallestThree } from "./quat.js";

/** Lower-case hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) {
    out += b.toString(16).padStart(2, "0");
  }
  return out;
}

/** Bytes from hex, upper or lower case; white space anywhere is ignored. */
export function fromHex(text: string): Uint8Array {
  const digits = text.replace(/\s+/g, "");
  if (digits.length % 2 !== 0) {
    throw new Error(`odd number of hex digits (${digits.length})`);
  }
  const out = new Uint8Array(digits.length / 2);
  for (let i = 0; i < out.length; i++) {
    const pair = digits.slice(2 * i, 2 * i + 2);
    if (!/^[0-9a-fA-F]{2}$/.test(pair)) {
      throw new Error(`\`${pair}\` is not a hex byte`);
    }
    out[i] = parseInt(pair, 16);
  }
  return out;
}

/** A JSON value. */
export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * How a value is written in the JSON form (conformance/PROTOCOL.md). Integers are numbers, read
 * within the range of the type the Rust codec holds them in (`u8` ... `i32`; `uint` and `int`
 * for up to 53 bits); `u64` and `i64` are bigints, numbers up to 2^53 − 1 in magnitude and
 * decimal strings beyond. Floats are numbers (`f32` printed as the shortest decimal that reads
 * back as the same single). `bytes` are lower-case hex, `opt_bytes` hex or null. A bit set is
 * the list of its set bits' names (in the codec, an integer of them), a union `{"variant": {...}}`.
 * A `quat` is its integers, `{"largest": 2, "rest": [12, -4, 255]}` (largest a `u8`, rest three
 * `i16`; its canonical rules are the encoder's to check, as the Rust codec's JSON reader leaves
 * them).
 */
export type JsonType =
  | JsonScalar
  | { readonly bits: () => BitSet<number> | BitSet<bigint> }
  | { readonly record: () => RecordJson }
  | { readonly union: () => UnionJson }
  | { readonly list: JsonType };

/** A {@link JsonType} that is neither a bit set, a record, a union nor a list. */
export type JsonScalar =
  | "u8"
  | "u16"
  | "u32"
  | "uint"
  | "i8"
  | "i16"
  | "i32"
  | "int"
  | "u64"
  | "i64"
  | "float"
  | "f32"
  | "bool"
  | "bytes"
  | "opt_bytes"
  | "quat";

/** A record's fields in the JSON form, in order: name, type, and whether it is optional. */
export type RecordJson = readonly (readonly [string, JsonType, boolean?])[];

/** A union's variants in the JSON form: name (snake_case) and the variant's record. */
export type UnionJson = readonly (readonly [string, JsonType])[];

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The shortest decimal that reads back as the same single as `x`, as serde_json prints an f32. */
function shortestF32(x: number): number {
  if (x === 0 || !Number.isFinite(x)) {
    return x;
  }
  for (let digits = 1; digits < 17; digits++) {
    const y = Number(x.toPrecision(digits));
    if (Math.fround(y) === x) {
      return y;
    }
  }
  return x;
}

function scalarToJson(type: JsonScalar, value: unknown): JsonValue {
  switch (type) {
    case "u8":
    case "u16":
    case "u32":
    case "uint":
    case "i8":
    case "i16":
    case "i32":
    case "int":
    case "float":
      return value as number;
    case "f32":
      return shortestF32(value as number);
    case "u64":
    case "i64": {
      const v = value as bigint;
      return v >= -MAX_SAFE && v <= MAX_SAFE ? Number(v) : v.toString();
    }
    case "bool":
      return value as boolean;
    case "bytes":
      return toHex(value as Uint8Array);
    case "opt_bytes":
      return value === null ? null : toHex(value as Uint8Array);
    case "quat": {
      const q = value as SmallestThree;
      return { largest: q.largest, rest: [q.rest[0], q.rest[1], q.rest[2]] };
    }
  }
}

/** `value`, of the type `type` describes, in the JSON form. */
export function toJson(type: JsonType, value: unknown): JsonValue {
  if (typeof type === "string") {
    return scalarToJson(type, value);
  }
  if ("bits" in type) {
    return bitSetNames<number | bigint>(type.bits(), value as number | bigint);
  }
  if ("record" in type) {
    const record = value as { readonly [key: string]: unknown };
    const out: { [key: string]: JsonValue } = {};
    for (const [name, field, optional] of type.record()) {
      if (optional !== true || record[name] !== undefined) {
        out[name] = toJson(field, record[name]);
      }
    }
    return out;
  }
  if ("union" in type) {
    const u = value as { readonly kind: string; readonly value: unknown };
    const variant = type.union().find(([name]) => name === u.kind);
    if (variant === undefined) {
      throw new JsonError(`unknown variant \`${u.kind}\``, "");
    }
    return { [u.kind]: toJson(variant[1], u.value) };
  }
  const list = type.list;
  return (value as readonly unknown[]).map((item) => toJson(list, item));
}

function describe(json: unknown): string {
  if (json === null) {
    return "null";
  }
  if (Array.isArray(json)) {
    return "a list";
  }
  return typeof json === "object" ? "an object" : JSON.stringify(json);
}

function isObject(json: unknown): json is { readonly [key: string]: unknown } {
  return typeof json === "object" && json !== null && !Array.isArray(json);
}

function bigFromJson(json: unknown, signed: boolean, fail: (message: string) => JsonError): bigint {
  let v: bigint;
  if (typeof json === "number" && Number.isInteger(json)) {
    v = BigInt(json);
  } else if (typeof json === "string" && (signed ? /^[+-]?[0-9]+$/ : /^\+?[0-9]+$/).test(json)) {
    v = BigInt(json);
  } else {
    const what = signed ? "an integer" : "an unsigned integer";
    throw fail(`expected ${what} or a decimal string, found ${describe(json)}`);
  }
  const [min, max] = signed ? [-(1n << 63n), (1n << 63n) - 1n] : [0n, (1n << 64n) - 1n];
  if (v < min || v > max) {
    throw fail(`${v} is outside ${min}..=${max}`);
  }
  return v;
}

/** The values each integer type of the JSON form takes, as the Rust codec reads them. */
const INT_RANGES = {
  u8: [0, 0xff],
  u16: [0, 0xffff],
  u32: [0, 0xffffffff],
  uint: [0, Number.MAX_SAFE_INTEGER],
  i8: [-0x80, 0x7f],
  i16: [-0x8000, 0x7fff],
  i32: [-0x80000000, 0x7fffffff],
  int: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
} as const;

function scalarFromJson(
  type: JsonScalar,
  json: unknown,
  fail: (message: string) => JsonError,
): unknown {
  switch (type) {
    case "u8":
    case "u16":
    case "u32":
    case "uint":
    case "i8":
    case "i16":
    case "i32":
    case "int": {
      const [min, max] = INT_RANGES[type];
      if (typeof json !== "number" || !Number.isInteger(json)) {
        throw fail(`expected an integer, found ${describe(json)}`);
      }
      if (json < min || json > max) {
        throw fail(`${json} is outside ${min}..=${max} (${type})`);
      }
      return json;
    }
    case "float":
    case "f32":
      if (typeof json === "number") {
        return json;
      }
      throw fail(`expected a number, found ${describe(json)}`);
    case "u64":
    case "i64":
      return bigFromJson(json, type === "i64", fail);
    case "bool":
      if (typeof json === "boolean") {
        return json;
      }
      throw fail(`expected a boolean, found ${describe(json)}`);
    case "bytes":
    case "opt_bytes":
      if (json === null && type === "opt_bytes") {
        return null;
      }
      if (typeof json !== "string") {
        throw fail(`expected a hex string, found ${describe(json)}`);
      }
      try {
        return fromHex(json);
      } catch (e) {
        throw fail((e as Error).message);
      }
    case "quat":
      return quatFromJson(json, fail);
  }
}

/** A `quat` in the JSON form: exactly the fields `largest` (a `u8`) and `rest` (three `i16`). */
function quatFromJson(json: unknown, fail: (message: string) => JsonError): SmallestThree {
  if (!isObject(json)) {
    throw fail(`expected an object with largest and rest, found ${describe(json)}`);
  }
  for (const key of Object.keys(json)) {
    if (key !== "largest" && key !== "rest") {
      throw fail(`unknown field \`${key}\`, expected one of largest, rest`);
    }
  }
  for (const key of ["largest", "rest"]) {
    if (json[key] === undefined) {
      throw fail(`missing field \`${key}\``);
    }
  }
  const largest = scalarFromJson("u8", json["largest"], fail) as number;
  const rest = json["rest"];
  if (!Array.isArray(rest) || rest.length !== 3) {
    throw fail(`expected rest as a list of three integers, found ${describe(rest)}`);
  }
  const [a, b, c] = rest.map((v) => scalarFromJson("i16", v, fail) as number) as [
    number,
    number,
    number,
  ];
  return { largest, rest: [a, b, c] };
}

/**
 * Reads a value of the type `type` describes from its JSON form, as strictly as the Rust codec
 * does: an unknown field, bit or variant, or a missing field, is an error.
 */
export function fromJson(type: JsonType, json: unknown, path: Segment[] = []): unknown {
  const fail = (message: string) => new JsonError(message, pathText(path));
  if (typeof type === "string") {
    return scalarFromJson(type, json, fail);
  }
  if ("bits" in type) {
    const set = type.bits();
    if (!Array.isArray(json)) {
      throw fail(`expected a list of bit names, found ${describe(json)}`);
    }
    for (const name of json) {
      if (!set.names.some(([known]) => known === name)) {
        const known = set.names.map(([n]) => n).join(", ");
        throw fail(`unknown bit ${describe(name)}, expected one of ${known}`);
      }
    }
    return bitSetValue<number | bigint>(set, json as string[]);
  }
  if ("record" in type) {
    const fields = type.record();
    if (!isObject(json)) {
      throw fail(`expected an object, found ${describe(json)}`);
    }
    for (const key of Object.keys(json)) {
      if (!fields.some(([name]) => name === key)) {
        const known = fields.map(([name]) => name).join(", ");
        throw fail(`unknown field \`${key}\`, expected one of ${known}`);
      }
    }
    const out: { [key: string]: unknown } = {};
    for (const [name, field, optional] of fields) {
      const item = json[name];
      if (item === undefined || (item === null && optional === true)) {
        if (optional === true) {
          continue;
        }
        throw fail(`missing field \`${name}\``);
      }
      path.push(name);
      out[name] = fromJson(field, item, path);
      path.pop();
    }
    return out;
  }
  if ("union" in type) {
    const variants = type.union();
    const keys = isObject(json) ? Object.keys(json) : [];
    const variant = variants.find(([name]) => keys.length === 1 && name === keys[0]);
    if (!isObject(json) || variant === undefined) {
      const known = variants.map(([name]) => name).join(", ");
      throw fail(`expected an object with one of ${known}, found ${describe(json)}`);
    }
    path.push(variant[0]);
    const value = fromJson(variant[1], json[variant[0]], path);
    path.pop();
    return { kind: variant[0], value };
  }
  if (!Array.isArray(json)) {
    throw fail(`expected a list, found ${describe(json)}`);
  }
  const list = type.list;
  return json.map((item, i) => {
    path.push(i);
    const value = fromJson(list, item, path);
    path.pop();
    return value;
  });
}
