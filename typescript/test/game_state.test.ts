// The game's generated binding (gen-game/arena.ts, which `ackwire gen --lang ts` writes for
// `state Arena` of examples/game/wire; test.sh generates it), whose players' health is a ranged
// field (`u8 in 0..=100`, WIRE-29): kind 6's reader at once takes the recorded stream's frames
// (examples/game/vectors/streams/arena.txt), their events included, and leaves a health past 100
// to the generated reader, which refuses it where it is.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { DecodeError, EntityMask, decodeArenaUpdate, fromHex } from "../gen-game/protocol.js";
import { Arena, type ArenaFrame } from "../gen-game/arena.js";
import { AckedDecoder, emptyFrame } from "../gen-game/runtime/sessions/acked.js";

/** The kind 6 frames the recorded client received, in order. */
function recordedFrames(): Uint8Array[] {
  const text = readFileSync(
    new URL("../../../examples/game/vectors/streams/arena.txt", import.meta.url),
    "utf8",
  );
  return text
    .split("\n")
    .filter((l) => l.startsWith("frame "))
    .map((l) => fromHex(l.slice("frame ".length).trim()))
    .filter((b) => b[0] === 6);
}

/** Whether `frame` has no event. */
function quiet(frame: Uint8Array): boolean {
  return decodeArenaUpdate(frame).events.length === 0;
}

/**
 * A frame to read into and the list of changes its reader at once reuses: that reader keeps a
 * frame's changes in the same list for every frame read into the same `out`, where the generated
 * reader's frame brings a list of its own, so the list tells which reader ran.
 */
function pooled(first: Uint8Array): [ArenaFrame, ArenaFrame["changes"]] {
  const out: ArenaFrame = emptyFrame();
  Arena.decodeFrameInto(first, out);
  const list = out.changes;
  Arena.decodeFrameInto(first, out);
  assert.equal(out.changes, list, "the reader at once reuses its list");
  return [out, list];
}

/** The error `read` throws, as [kind, offset, bit, path]. */
function errorOf(read: () => unknown): unknown[] {
  try {
    read();
  } catch (e) {
    assert.ok(e instanceof DecodeError, String(e));
    return [e.kind, e.offset, e.bit, e.path];
  }
  assert.fail("no error");
}

/** The byte offset of the first player's health in a frame without a check or removals. */
function firstHealth(bytes: Uint8Array): number {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  assert.equal(bytes[14]! & 2, 0, "no check");
  assert.equal(dv.getUint16(15, true), 0, "no removal");
  let p = 19;
  for (let i = 0; i < dv.getUint16(17, true); i++) {
    const mask = dv.getUint16(p + 2, true);
    p += 4;
    p += (mask & EntityMask.POSITION_AGE) !== 0 ? 1 : 0;
    if ((mask & EntityMask.POSITION) !== 0) {
      p += (mask & EntityMask.POSITION_FULL) !== 0 ? 8 : 4;
    }
    p += (mask & EntityMask.VELOCITY) !== 0 ? 4 : 0;
    if ((mask & EntityMask.PLAYER) !== 0) {
      return p + 1;
    }
    p += (mask & EntityMask.PROJECTILE) !== 0 ? 2 : 0;
    p += (mask & EntityMask.PICKUP) !== 0 ? 1 : 0;
  }
  assert.fail("no player in the frame");
}

describe("the game's binding, whose health is ranged", () => {
  const frames = recordedFrames();

  it("reads the recorded frames at once, events included, as the generated reader does", () => {
    assert.ok(frames.length > 100, `${frames.length} frames`);
    const [out, list] = pooled(frames.find(quiet)!);
    let atOnce = 0;
    let players = 0;
    let events = 0;
    for (const bytes of frames) {
      Arena.decodeFrameInto(bytes, out);
      atOnce += out.changes === list ? 1 : 0;
      players += out.changes.filter((c) => c.player !== undefined).length;
      events += out.events.length;
      const generated = decodeArenaUpdate(bytes);
      assert.deepEqual(
        JSON.parse(JSON.stringify([out.changes, out.events, out.firstSerial])),
        JSON.parse(
          JSON.stringify([generated.changes, generated.events, generated.first_serial ?? 0]),
        ),
      );
    }
    assert.equal(atOnce, frames.length, "every recorded frame is read at once");
    assert.ok(players > 100, `${players} players' health read`);
    assert.ok(events > 100, `${events} events read`);
    // And through the machine: every recorded frame decodes.
    const d = new AckedDecoder(Arena);
    for (const bytes of frames) {
      assert.notEqual(d.deliver(bytes).kind, "undecodable");
    }
  });

  it("leaves a health past 100 to the generated reader, which says where", () => {
    const bytes = frames.find(
      (b) => quiet(b) && decodeArenaUpdate(b).changes.some((c) => c.player !== undefined),
    );
    assert.ok(bytes !== undefined, "a frame with a player and no event");
    const at = firstHealth(bytes);
    const [out, list] = pooled(bytes);
    for (const health of [0, 100, 101, 255]) {
      const mutant = bytes.slice();
      mutant[at] = health;
      if (health <= 100) {
        Arena.decodeFrameInto(mutant, out);
        assert.equal(out.changes, list, `health ${health} is read at once`);
        continue;
      }
      const expected = errorOf(() => decodeArenaUpdate(mutant));
      assert.deepEqual(expected, ["over_width", at, undefined, expected[3]]);
      assert.match(String(expected[3]), /health$/);
      assert.deepEqual(
        errorOf(() => Arena.decodeFrameInto(mutant, out)),
        expected,
      );
    }
  });
  it("agrees with the generated reader on mutants of every recorded frame", () => {
    let seed = 1;
    const next = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const as = (read: () => unknown): string => {
      try {
        return JSON.stringify(read());
      } catch (e) {
        assert.ok(e instanceof DecodeError, String(e));
        return `error ${e.kind} at ${e.offset} in ${e.path}`;
      }
    };
    let read = 0;
    for (const bytes of frames) {
      for (let m = 1; m <= 12; m++) {
        const mutant = m % 4 === 0 ? bytes.slice(0, next(bytes.length)) : bytes.slice();
        if (m % 4 !== 0) {
          mutant[next(mutant.length)] = next(256);
        }
        const out: ArenaFrame = emptyFrame();
        const got = as(() => {
          Arena.decodeFrameInto(mutant, out);
          return [out.changes, out.events, out.firstSerial];
        });
        const want = as(() => {
          const f = decodeArenaUpdate(mutant);
          if ((f.flags & 1) !== 0 && f.base_tick !== 0) {
            throw new DecodeError("invalid_condition", 5, undefined, "base_tick");
          }
          return [f.changes, f.events, f.first_serial ?? 0];
        });
        assert.equal(got, want);
        read += got.startsWith("error") ? 0 : 1;
      }
    }
    assert.ok(read > 500, `${read} mutants read`);
  });
});
