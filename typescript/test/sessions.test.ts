// The pieces every session half shares: FNV-1a 32 against its published vectors, and the
// outbox's limit against a peer that makes a half queue frames faster than they are polled.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fnv1a32 } from "../src/sessions/fnv.js";
import { MAX_QUEUED, Outbox, SessionError, expectFrame, tick32 } from "../src/sessions/half.js";

const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);

describe("fnv1a32", () => {
  it("matches the published test vectors", () => {
    // CHECK-1.
    assert.equal(fnv1a32(ascii("")), 0x811c9dc5);
    assert.equal(fnv1a32(ascii("a")), 0xe40c292c);
    assert.equal(fnv1a32(ascii("foobar")), 0xbf9cf968);
  });
  it("continues a running hash", () => {
    assert.equal(fnv1a32(ascii("bar"), fnv1a32(ascii("foo"))), fnv1a32(ascii("foobar")));
  });
  it("multiplies without float rounding over long input", () => {
    const long = new Uint8Array(100_000).fill(0xff);
    let h = 0x811c9dc5;
    for (const b of long) {
      h = Math.imul((h ^ b) >>> 0, 16777619) >>> 0;
    }
    assert.equal(fnv1a32(long), h);
  });
});

describe("Outbox", () => {
  const frame = (n: number, reliable: boolean) => ({
    frame: "ack",
    bytes: Uint8Array.of(n & 0xff),
    reliable,
  });
  it("hands frames out in order, once", () => {
    const o = new Outbox();
    o.push(frame(1, false));
    o.push(frame(2, true));
    assert.equal(o.poll()?.bytes[0], 1);
    assert.equal(o.poll()?.bytes[0], 2);
    assert.equal(o.poll(), undefined);
  });
  it("holds at most MAX_QUEUED, dropping the oldest unreliable frame", () => {
    // GEN-8.
    const o = new Outbox();
    o.push(frame(0, true));
    for (let i = 1; i <= MAX_QUEUED + 10; i++) {
      o.push(frame(i, false));
    }
    assert.equal(o.length, MAX_QUEUED);
    assert.equal(o.poll()?.reliable, true, "a reliable frame is never dropped");
    // 1 reliable and 1,034 unreliable pushed into 1,024 places: the 11 oldest unreliable (1 to 11) go.
    assert.equal(o.poll()?.bytes[0], 12);
  });
});

describe("half helpers", () => {
  it("refuse a tick beyond u32 and an unexpected frame", () => {
    assert.equal(tick32(0xffffffff), 0xffffffff);
    assert.throws(
      () => tick32(2 ** 32),
      (e: unknown) => e instanceof SessionError && e.kind === "tick_range",
    );
    assert.throws(
      () => expectFrame("ack", "acked"),
      (e: unknown) => e instanceof SessionError && e.kind === "unexpected_frame",
    );
  });
});
