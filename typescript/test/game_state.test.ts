// The game's generated binding (gen-game/arena.ts, which `ackwire gen --lang ts` writes for
// `state Arena` of examples/game/wire; test.sh generates it), whose players' health is a ranged
// field (`u8 in 0..=100`, WIRE-29): kind 6's reader at once takes the recorded stream's frames
// (examples/game/vectors/streams/arena.txt), their events included, and leaves a health past 100
// to the generated reader, which refuses it where it is. Its coded frame (`ArenaCoded`, kind 13,
// no tables: every slot starts at 2048) carries the same states as kind 12 in fewer bytes.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  ARENA_CODED_MODELS,
  ARENA_CODED_TABLES,
  CodedEncoder,
  type Command,
  DecodeError,
  EncodeError,
  type Entity,
  EntityKind,
  EntityMask,
  PackedEntityMask,
  Writer,
  codedProbs,
  decodeArenaCoded,
  decodeArenaUpdate,
  fromHex,
  modelSlots,
} from "../gen-game/protocol.js";
import { Arena, type ArenaFrame, CodedArena, PackedArena } from "../gen-game/arena.js";
import {
  AckedDecoder,
  AckedEncoder,
  type InputSink,
  type ServerState,
  emptyFrame,
} from "../gen-game/runtime/sessions/acked.js";

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

/** Player `eid` at tick `tick`, running at a steady pace of its own. */
function runner(eid: number, tick: number): Entity {
  return {
    flags: EntityKind.PLAYER,
    x: 256 * eid + tick * (eid + 2),
    y: -128 * eid + tick * (eid % 3),
    measured: tick,
    vx: eid + 2,
    vy: eid % 3,
    player: { aim: (eid * 9) % 256, health: 40 + eid, weapon: eid % 2 },
    projectile: undefined,
    pickup: undefined,
  };
}

/** The state of `n` runners at `tick`. */
function runners(n: number, tick: number): ServerState<Entity> {
  return Array.from({ length: n }, (_, i) => ({
    eid: i + 1,
    life: 1,
    record: runner(i + 1, tick),
  }));
}

describe("the game's coded frame (kind 13, no tables)", () => {
  const sink: InputSink<Command> = { submit: () => undefined, pending: () => 0 };
  const ack = (ackTick: number) => ({ ackTick, keyframeRequest: false, firstSeq: 0, inputs: [] });

  it("carries the states kind 12 carries, in fewer bytes, predicting each step from the motion", () => {
    const packed = new AckedEncoder(PackedArena, sink);
    const coded = new AckedEncoder(CodedArena, sink);
    const dp = new AckedDecoder(PackedArena);
    const dc = new AckedDecoder(CodedArena);
    let [bp, bc] = [0, 0];
    for (let t = 1; t <= 90; t++) {
      const state = runners(20, t);
      const x = packed.encode(t, state, []);
      const y = coded.encode(t, state, []);
      assert.equal(y.bytes[0], 13);
      [bp, bc] = [bp + x.bytes.length, bc + y.bytes.length];
      assert.equal(dp.deliver(x.bytes).kind, "shown", `tick ${t}`);
      assert.equal(dc.deliver(y.bytes).kind, "shown", `tick ${t}`);
      assert.equal(dc.stateHash(), dp.stateHash(), `tick ${t}`);
      if (t > 2) {
        packed.onAck(t, ack(t - 2));
        coded.onAck(t, ack(t - 2));
      }
    }
    assert.ok(coded.counters.olderNamed > 60, JSON.stringify(coded.counters));
    assert.ok(bc < bp, `kind 13 ${bc} bytes, kind 12 ${bp}`);
  });

  it("refuses a health past 100 as kind 12 does, writing and reading", () => {
    // WIRE-29 in the coded frame: the encoder refuses the value; a stream that says 101 is
    // refused by the reader at the stream's first byte.
    const enc = new AckedEncoder(CodedArena, sink);
    const hurt = runners(1, 1);
    hurt[0]!.record.player!.health = 101;
    assert.throws(
      () => enc.encode(1, hurt, []),
      (e: unknown) => e instanceof EncodeError && e.kind === "over_width" && /health$/.test(e.path),
    );
    // Its model's 7 bits hold up to 127: a stream that codes 101 (written here value by value
    // under the frame's models) is refused at the stream's first byte, at the field.
    const models = new Map<string, [number, number]>();
    let slot = 0;
    for (const [name, w] of ARENA_CODED_MODELS) {
      models.set(name, [slot, w]);
      slot += modelSlots(w);
    }
    const code = (stream: CodedEncoder, name: string, v: number) => {
      const [at, w] = models.get(name)!;
      stream.value(at, w, v);
    };
    const stream = new CodedEncoder(codedProbs(ARENA_CODED_TABLES));
    code(stream, "eid", 1);
    code(stream, "mask", PackedEntityMask.PLAYER);
    code(stream, "player.aim", 3);
    code(stream, "player.health", 101);
    code(stream, "player.weapon", 0);
    const empty = new AckedEncoder(CodedArena, sink).encode(1, [], []).bytes;
    assert.equal(empty.length, 23);
    const w = new Writer();
    w.append(empty.subarray(0, 18));
    w.u16(1);
    stream.finish(1, w);
    w.u8(0);
    assert.deepEqual(
      errorOf(() => decodeArenaCoded(w.finish())),
      ["over_width", 22, undefined, "body.changes[0].player.health"],
    );
  });
});
