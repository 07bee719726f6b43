// Assertions on the errors of the runtime: the kind, the offset and the field path, each checked.

import assert from "node:assert/strict";
import { DecodeError, EncodeError, type ErrorKind } from "../src/index.js";

/** Where a decode error is expected: its byte offset, and its bit offset and path when given. */
export interface At {
  offset: number;
  bit?: number;
  path?: string;
}

/** Asserts that `f` throws a {@link DecodeError} of `kind` at `at`. */
export function assertDecodeFault(f: () => unknown, kind: ErrorKind, at: At): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof DecodeError, `expected a DecodeError, got ${String(e)}`);
    assert.deepEqual(
      { kind: e.kind, offset: e.offset, bit: e.bit, path: e.path },
      { kind, offset: at.offset, bit: at.bit, path: at.path ?? "" },
    );
    return true;
  });
}

/** Asserts that `f` throws an {@link EncodeError} of `kind` in the field `path`. */
export function assertEncodeFault(f: () => unknown, kind: ErrorKind, path = ""): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof EncodeError, `expected an EncodeError, got ${String(e)}`);
    assert.deepEqual({ kind: e.kind, path: e.path }, { kind, path });
    return true;
  });
}

/** The bytes of a list of byte values. */
export function bytes(...values: number[]): Uint8Array {
  return Uint8Array.from(values);
}
