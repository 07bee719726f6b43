/**
 * 32-bit FNV-1a (offset basis 2166136261, prime 16777619): CHECK-1, the hash of the state check
 * and of every session's state hash. `hash` continues a running hash, so that a state's canonical
 * bytes can be hashed in pieces without being concatenated first; `end` hashes the bytes before
 * it only (a record written into a scratch buffer larger than it).
 */
export function fnv1a32(
  bytes: Uint8Array,
  hash: number = 0x811c9dc5,
  end: number = bytes.length,
): number {
  let h = hash >>> 0;
  for (let i = 0; i < end; i++) {
    h ^= bytes[i]!;
    // h * 16777619 mod 2^32, as 2^24 + 2^8 + 0x93, with no float rounding past 2^53.
    h = (h + (h << 1) + (h << 4) + (h << 7) + (h << 8) + (h << 24)) >>> 0;
  }
  return h;
}
