// Encoded lengths: what `encodedLenX` sums without writing anything.

/** How many bytes the LEB128 form of `v` takes. */
export function varintLen(v: number): number {
  let n = 1;
  for (let rest = v; rest >= 0x80; rest = Math.floor(rest / 0x80)) {
    n += 1;
  }
  return n;
}

/** How many bytes the LEB128 form of a bigint takes. */
export function bigVarintLen(v: bigint): number {
  let n = 1;
  for (let rest = v; rest >= 0x80n; rest >>= 7n) {
    n += 1;
  }
  return n;
}

/** The encoded length of `bytes`. */
export function bytesLen(v: Uint8Array): number {
  return varintLen(v.length) + v.length;
}

/** The encoded length of `bytes?`. */
export function optBytesLen(v: Uint8Array | null): number {
  return v === null ? 1 : varintLen(v.length + 1) + v.length;
}

/** The sum of `len` over `items`. */
export function sumOf<T>(items: readonly T[], len: (item: T) => number): number {
  let n = 0;
  for (const item of items) {
    n += len(item);
  }
  return n;
}
