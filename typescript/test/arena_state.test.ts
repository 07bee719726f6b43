// A second state's generated binding (gen-arena/arena.ts, which `ackwire gen --lang ts` writes for
// `state Arena` of spec/tests/state/arena.wire; test.sh generates it): what the reference
// protocol's cubes leave out (a group of two forms without a tier, a step without a reach, 64-bit
// integers, a float of 64 bits, a bool and a bit set in a group, an optional group of plain
// fields with a packed code, a quaternion of 7 bits every entity has, an age of 16 bits) through
// diff, apply, the check's bytes and both profiles' frames, and the runtime's machines over it
// under loss.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DecodeError,
  type Fighter,
  FighterFlags,
  FighterMask,
  Stance,
  Writer,
  fromXyzw,
  writeFighter,
} from "../gen-arena/protocol.js";
import { Arena, PackedArena } from "../gen-arena/arena.js";
import {
  AckedDecoder,
  AckedEncoder,
  type AckedSchema,
  type InputSink,
  type ServerState,
  delta,
  emptyFrame,
  serverCheck,
} from "../gen-arena/runtime/sessions/acked.js";
import { fnv1a32 } from "../gen-arena/runtime/sessions/fnv.js";

/** mulberry32: the same draws on every run. */
class Rng {
  private a: number;
  constructor(seed: number) {
    this.a = seed >>> 0;
  }
  u32(): number {
    this.a = (this.a + 0x6d2b79f5) >>> 0;
    let t = this.a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  below(n: number): number {
    return this.u32() % n;
  }
  within(lo: number, hi: number): number {
    return lo + (Math.floor(this.u32() * 4294967296 + this.u32()) % (hi - lo + 1));
  }
  big(bits: number, signed: boolean): bigint {
    const v = (BigInt(this.u32()) << 32n) | BigInt(this.u32());
    return signed ? BigInt.asIntN(bits, v) : BigInt.asUintN(bits, v);
  }
}

/**
 * A fighter the server may send at `tick` after `base`: its motion anywhere its full form holds
 * (px within an i32, py within what an f32 holds of 1/256 m, alt any i64), often a small step
 * from the base's; measured up to an age of 65535 ago; a shield kept once it has one.
 */
function fighter(rng: Rng, base: Fighter | undefined, tick: number): Fighter {
  const small = base !== undefined && rng.below(2) === 0;
  const shielded = base?.shield !== undefined || rng.below(2) === 0;
  const shield = shielded
    ? base?.shield !== undefined && rng.below(2) === 0
      ? base.shield
      : { strength: rng.below(256) / 2, regen: rng.below(65536) }
    : undefined;
  const q = [rng.u32() / 2 ** 31 - 1, rng.u32() / 2 ** 31 - 1, 0.5, rng.u32() / 2 ** 32] as const;
  return {
    flags: shield !== undefined ? FighterFlags.SHIELDED : 0,
    px: small ? base.px + rng.within(-128, 127) : rng.within(-(2 ** 31) + 1, 2 ** 31 - 1),
    py: small ? base.py + rng.within(-300, 300) : rng.within(-(2 ** 24) + 1, 2 ** 24 - 1),
    alt: small ? base.alt + BigInt(rng.within(-40000, 40000)) : rng.big(64, true),
    heading: rng.below(2) === 0 ? rng.below(256) << 8 : rng.below(65536),
    at: Math.max(0, tick - (rng.below(3) === 0 ? rng.below(65536) : 0)),
    points: rng.below(3) === 0 ? (base?.points ?? 0n) : rng.big(64, false),
    alive: rng.below(2) === 0,
    stance: rng.below(4) & (Stance.CROUCHED | Stance.SPRINTING),
    rank: rng.below(65536),
    shield,
    aim:
      base !== undefined && rng.below(2) === 0
        ? base.aim
        : { q: fromXyzw([q[0], q[1], q[2], q[3]], 7) },
  };
}

/** The canonical bytes of a fighter, through the generated writer. */
function bytesOf(f: Fighter): Uint8Array {
  const w = new Writer();
  writeFighter(w, f);
  return w.finish();
}

function check<C>(schema: AckedSchema<Fighter, C, never, unknown>, seed: number): void {
  const rng = new Rng(seed);
  let full = 0;
  let step = 0;
  for (let n = 0; n < 400; n++) {
    const tick = 70000 + n;
    const base = rng.below(4) === 0 ? undefined : fighter(rng, undefined, tick - 3);
    const next = fighter(rng, base, tick);
    const c = schema.diff(7, base, next, tick);
    if (c === undefined) {
      assert.ok(base !== undefined && schema.sameRecord(base, next), `change ${n}`);
      continue;
    }
    // Through a frame of the schema's kind, and back.
    const frame = { ...emptyFrame<C, never>(), tick, baseTick: tick - 3, changes: [c] };
    const bytes = schema.encodeFrame(frame);
    const read = emptyFrame<C, never>();
    schema.decodeFrameInto(bytes, read);
    assert.deepEqual(schema.encodeFrame(read), bytes, `change ${n}: the same bytes again`);
    const applied = schema.apply(base, read.changes[0]!, tick);
    assert.deepEqual(applied, next, `change ${n}`);
    assert.ok(schema.sameRecord(applied, next));
    assert.equal(schema.hashRecord(next, 0x811c9dc5), fnv1a32(bytesOf(next)), `hash ${n}`);
    const mask = (c as { mask: number }).mask;
    if (schema === Arena) {
      full += (mask & FighterMask.MOTION_FULL) !== 0 ? 1 : 0;
      step += (mask & FighterMask.MOTION) !== 0 && (mask & FighterMask.MOTION_FULL) === 0 ? 1 : 0;
    }
  }
  if (schema === Arena) {
    assert.ok(full > 50 && step > 50, `motions full ${full}, as steps ${step}`);
  }
}

describe("a second state's binding (spec/tests/state/arena.wire)", () => {
  it("diffs, carries and applies every record in the byte-aligned frame", () => {
    check(Arena, 1);
  });

  it("diffs, carries and applies every record in the packed frame", () => {
    check(PackedArena, 2);
  });

  it("refuses a shield the record drops, and a shield strength past its packed code", () => {
    const rng = new Rng(3);
    const base = fighter(rng, undefined, 10);
    const shielded = { ...base, flags: FighterFlags.SHIELDED, shield: { strength: 3, regen: 1 } };
    const dropped = { ...shielded, flags: 0, shield: undefined };
    for (const schema of [Arena, PackedArena] as const) {
      assert.throws(() => schema.diff(1, shielded, dropped, 10), /invalid_condition in shield/);
    }
    const strong = { ...shielded, shield: { strength: 200, regen: 1 } };
    assert.throws(() => PackedArena.diff(1, shielded, strong, 10), /over_width in shield.strength/);
  });

  it("lets nothing but a DecodeError out of mutated frames of either kind", () => {
    const rng = new Rng(4);
    for (const schema of [Arena, PackedArena] as AckedSchema<Fighter, unknown, never, unknown>[]) {
      let accepted = 0;
      for (let n = 0; n < 1500; n++) {
        const next = fighter(rng, undefined, 500);
        const c = schema.diff(n, undefined, next, 500)!;
        const bytes = schema.encodeFrame({
          ...emptyFrame(),
          tick: 500,
          keyframe: true,
          changes: [c],
        });
        const i = rng.below(bytes.length);
        bytes[i] = bytes[i]! ^ (1 + rng.below(255));
        const f = emptyFrame<unknown, never>();
        try {
          schema.decodeFrameInto(bytes, f);
        } catch (e) {
          assert.ok(e instanceof DecodeError, String(e));
          continue;
        }
        assert.deepEqual(schema.encodeFrame(f), bytes);
        accepted += 1;
      }
      assert.ok(accepted > 50, `${schema.FRAME_NAME}: ${accepted} mutations accepted`);
    }
  });

  it("streams through the machines under loss: every frame shown is the server's state", () => {
    for (const schema of [Arena, PackedArena] as AckedSchema<Fighter, unknown, never, unknown>[]) {
      const rng = new Rng(5);
      const sink: InputSink<unknown> = { submit: () => undefined, pending: () => 0 };
      const encoder = new AckedEncoder(schema, sink);
      const decoder = new AckedDecoder(schema);
      let world: ServerState<Fighter> = [];
      const checks = new Map<number, number>();
      let shown = 0;
      for (let tick = 1; tick <= 300; tick++) {
        const next: { eid: number; life: number; record: Fighter }[] = [];
        for (let eid = 1; eid <= 12; eid++) {
          const had = world.find((e) => e.eid === eid);
          if (rng.below(40) === 0) {
            continue;
          }
          const life = had === undefined || rng.below(60) === 0 ? tick : had.life;
          const before = had !== undefined && had.life === life ? had.record : undefined;
          const record =
            before !== undefined && rng.below(3) === 0 ? before : fighter(rng, before, tick);
          next.push({ eid, life, record });
        }
        world = next;
        checks.set(tick, serverCheck(schema, world));
        const sent = encoder.encode(tick, world, []);
        if (rng.below(10) < 3) {
          continue;
        }
        const d = decoder.deliver(sent.bytes);
        if (d.kind === "shown") {
          shown += 1;
          assert.equal(decoder.stateHash(), checks.get(d.report.tick), `tick ${tick}`);
          assert.equal(d.report.check ?? true, true);
        }
        if (rng.below(10) < 7) {
          encoder.onAck(tick, {
            ackTick: decoder.ackTick(),
            keyframeRequest: false,
            firstSeq: 0,
            inputs: [],
          });
        }
      }
      assert.ok(shown > 150, `${schema.FRAME_NAME}: ${shown} frames shown`);
      // The world's ids ascend and the delta of the last state onto nothing is a keyframe's.
      assert.equal(delta(schema, undefined, world, 301).changes.length, world.length);
    }
  });
});
