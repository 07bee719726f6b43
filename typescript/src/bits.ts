// Bit sets: a value is an integer of its set bits, with a layout that names them.

import type { ErrorKind } from "./errors.js";

/**
 * A bit set's layout. A value of the set is an integer (a bigint for a 64-bit set) whose set
 * bits are those of the value; the generated module names each bit with a constant of its
 * value (`ChangeMask.POSE`), so that `(mask & ChangeMask.POSE) !== 0` tests one and
 * `ChangeMask.POSE | ChangeMask.HEALTH` makes a set. Every bit not named is reserved.
 */
export interface BitSet<V extends number | bigint = number> {
  /** Width on the wire, in bits. */
  readonly width: number;
  /** Every named bit: its name and its value, in declaration order. */
  readonly names: readonly (readonly [string, V])[];
  /** The named bits together: a bit outside them is reserved. */
  readonly known: V;
  /**
   * The bits a value must be looked at closer for, within the width: every reserved bit and
   * every named bit that requires another. A value with none of them set is valid at once, with
   * one test; the generated layouts hold it, as `known`, so that no reader works it out.
   */
  readonly guard: V;
  /**
   * `[bits, other]`, as values: any of `bits` may only be set when the bit `other` is set
   * too; one entry for every bit that another requires.
   */
  readonly requires: readonly (readonly [V, V])[];
  /** The set is written most significant byte first. */
  readonly bigEndian?: boolean;
}

/**
 * Why the raw bits `raw` of a set of at most 32 bits are refused, or `undefined` when they
 * are not: a reserved bit, then a bit set without the bit it requires. `raw` is an integer of
 * at most the set's width.
 */
export function bitSetFault(set: BitSet<number>, raw: number): ErrorKind | undefined {
  // `&` works on 32 bits, the widest set of numbers: a bit 31 comes out negative, not 0.
  if ((raw & set.guard) === 0) {
    return undefined;
  }
  if ((raw & ~set.known) !== 0) {
    return "reserved_bit";
  }
  const requires = set.requires;
  for (let i = 0; i < requires.length; i++) {
    const [bits, other] = requires[i]!;
    if ((raw & bits) !== 0 && (raw & other) === 0) {
      return "invalid_condition";
    }
  }
  return undefined;
}

/** {@link bitSetFault} of a set wider than 32 bits. */
export function bigBitSetFault(set: BitSet<bigint>, raw: bigint): ErrorKind | undefined {
  if ((raw & set.guard) === 0n) {
    return undefined;
  }
  if ((raw & ~set.known) !== 0n) {
    return "reserved_bit";
  }
  for (const [bits, other] of set.requires) {
    if ((raw & bits) !== 0n && (raw & other) === 0n) {
      return "invalid_condition";
    }
  }
  return undefined;
}

/** The names of the bits set in `value`, in declaration order (the JSON form of a set). */
export function bitSetNames<V extends number | bigint>(set: BitSet<V>, value: V): string[] {
  return set.names
    .filter(([, bit]) =>
      typeof bit === "bigint" ? (bit & (value as bigint)) !== 0n : (bit & (value as number)) !== 0,
    )
    .map(([name]) => name);
}

/** The value of a set whose bits are those `names` name; a name of no bit is skipped. */
export function bitSetValue<V extends number | bigint>(
  set: BitSet<V>,
  names: readonly string[],
): V {
  let big = 0n;
  let small = 0;
  for (const [name, bit] of set.names) {
    if (names.includes(name)) {
      if (typeof bit === "bigint") {
        big |= bit;
      } else {
        // Distinct bits: a sum, which keeps bit 31 positive where `|` would not.
        small += bit as number;
      }
    }
  }
  return (typeof set.known === "bigint" ? big : small) as V;
}
