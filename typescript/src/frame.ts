// What every frame of a spec offers, for the functions that take a frame by name.

import type { RecordJson } from "./json.js";

/** What every frame of a spec offers, for the functions that take a frame by name. */
export interface FrameCodec<T> {
  /** Decodes a whole frame; bytes after it are an error. */
  readonly decode: (bytes: Uint8Array) => T;
  /** Encodes a frame. */
  readonly encode: (value: T) => Uint8Array;
  /** The number of bytes `encode` writes. */
  readonly encodedLen: (value: T) => number;
  /** The frame's fields in the JSON form. */
  readonly json: RecordJson;
}
