/**
 * The reference protocol's binding of the datagram v2 halves (`docs/spec/datagram.md`): its
 * `datagram`, the reliable stream's `spawn`, `despawn` and `full_frame`, and the client's
 * `datagram_ack`, from `spec/protocol/datagram.wire`.
 */

import {
  BigAscending,
  MAX_HEADER_LEN,
  UpdateMask,
  Writer,
  decodeDatagram,
  decodeDatagramAck,
  decodeDespawn,
  decodeFullFrame,
  decodeSpawn,
  encodeDatagram,
  encodeDatagramAck,
  encodeDespawn,
  encodeFullFrame,
  encodeSpawn,
  encodedLenUpdate,
  writeUpdate,
} from "../protocol.js";
import type { DatagramSchema } from "../runtime/sessions/datagram.js";

/** The reference protocol's datagram frames. */
export const REFERENCE_DATAGRAM: DatagramSchema = {
  names: {
    datagram: "datagram",
    spawn: "spawn",
    despawn: "despawn",
    fullFrame: "full_frame",
    ack: "datagram_ack",
  },
  mask: { x: UpdateMask.X, y: UpdateMask.Y, z: UpdateMask.Z, components: UpdateMask.COMPONENTS },
  maxHeaderLen: MAX_HEADER_LEN,
  updateLen(update, prev) {
    // The id is written as its difference from the previous one in the ascending list.
    const list = new BigAscending(64);
    if (prev !== undefined) {
      list.step(prev);
    }
    return encodedLenUpdate(update, list);
  },
  checkUpdate(update) {
    writeUpdate(new Writer(), update);
  },
  decodeDatagram,
  encodeDatagram,
  decodeSpawn,
  encodeSpawn,
  decodeDespawn,
  encodeDespawn,
  decodeFullFrame,
  encodeFullFrame,
  decodeAck: decodeDatagramAck,
  encodeAck: encodeDatagramAck,
};
