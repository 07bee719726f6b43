// Integer ranges, rounding and quantization, and the errors' own form.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DecodeError,
  EncodeError,
  JsonError,
  pathText,
  quantize,
  roundHalfAwayFromZero,
  Writer,
} from "../src/index.js";
import { isBigInt, isBigUint, isInt, isUint } from "../src/ints.js";
import { assertEncodeFault } from "./faults.js";

describe("integer ranges", () => {
  it("bound unsigned and signed values of a width, integers only", () => {
    assert.ok(isUint(0, 1) && isUint(1, 1) && !isUint(2, 1));
    assert.ok(isUint(2 ** 53 - 1, 53) && !isUint(2 ** 53, 53));
    assert.ok(!isUint(-1, 8) && !isUint(0.5, 8) && !isUint(Number.NaN, 8));
    assert.ok(isInt(-128, 8) && isInt(127, 8) && !isInt(128, 8) && !isInt(-129, 8));
    assert.ok(isInt(-1, 2) && isInt(1, 2) && !isInt(2, 2) && !isInt(-3, 2));
    assert.ok(isBigUint(2n ** 64n - 1n, 64) && !isBigUint(2n ** 64n, 64) && !isBigUint(-1n, 64));
    assert.ok(isBigInt(-(2n ** 63n), 64) && !isBigInt(2n ** 63n, 64));
  });
});

describe("rounding and quantization", () => {
  it("rounds halves away from zero, as Rust's f64::round", () => {
    // WIRE-8.
    assert.equal(roundHalfAwayFromZero(2.5), 3);
    assert.equal(roundHalfAwayFromZero(-2.5), -3);
    assert.equal(roundHalfAwayFromZero(0.5), 1);
    assert.equal(roundHalfAwayFromZero(-0.5), -1);
    assert.equal(roundHalfAwayFromZero(2.4), 2);
    assert.equal(roundHalfAwayFromZero(-2.6), -3);
    // The largest double below one half: Math.round(x + 0.5) style rounding would give 1.
    assert.equal(roundHalfAwayFromZero(0.49999999999999994), 0);
  });

  it("quantizes a value to its wire integer, a non-finite value to 0", () => {
    // WIRE-8.
    assert.equal(quantize(1.25, 0.5), 3);
    assert.equal(quantize(-1.25, 0.5), -3);
    assert.equal(quantize(10, 1 / 4), 40);
    assert.equal(quantize(Number.NaN, 0.5), 0);
    assert.equal(quantize(Number.POSITIVE_INFINITY, 0.5), 0);
  });

  it("refuses a quantized value outside its wire integer", () => {
    // WIRE-8.
    const w = new Writer();
    assert.equal(w.quantizeInt(-16, 0.125, -128, 127), -128);
    assertEncodeFault(() => w.quantizeInt(-16.1, 0.125, -128, 127), "over_width");
    assert.equal(w.quantizeUint(31.9, 0.125, 255), 255);
    assertEncodeFault(() => w.quantizeUint(-0.1, 0.125, 255), "over_width");
    assertEncodeFault(() => w.quantizeUint(32, 0.125, 255), "over_width");
    assert.equal(w.quantizeBigUint(2 ** 60, 1, 2n ** 64n - 1n), 2n ** 60n);
    assertEncodeFault(() => w.quantizeBigUint(2 ** 64, 1, 2n ** 64n - 1n), "over_width");
    const [min, max] = [-(2n ** 63n), 2n ** 63n - 1n];
    // 2^63 - 1 is no double: the bound rounds up to 2^63, and what passes saturates.
    assert.equal(w.quantizeBigInt(2 ** 63, 1, min, max), max);
    assertEncodeFault(() => w.quantizeBigInt(2 ** 64, 1, min, max), "over_width");
  });
});

describe("errors", () => {
  it("print a field path outermost first", () => {
    // WIRE-22.
    assert.equal(pathText([]), "");
    assert.equal(pathText(["changes", 3, "mask"]), "changes[3].mask");
    assert.equal(pathText(["", "tick"]), "tick");
    assert.equal(pathText([0, 1]), "[0][1]");
  });

  it("say what, where and in which field", () => {
    const byte = new DecodeError("truncated", 3, undefined, "a.b");
    assert.equal(byte.message, "truncated at byte 3, field a.b");
    assert.equal(byte.name, "DecodeError");
    assert.ok(byte instanceof Error);
    const bit = new DecodeError("reserved_bit", 1, 12, "");
    assert.equal(bit.message, "reserved_bit at byte 1 (bit 12)");
    assert.equal(
      new EncodeError("over_width", "x[2]").message,
      "cannot encode: over_width in x[2]",
    );
    assert.equal(new EncodeError("non_finite", "").message, "cannot encode: non_finite");
    assert.equal(new JsonError("bad", "a").message, "a: bad");
    assert.equal(new JsonError("bad", "").message, "bad");
  });
});
