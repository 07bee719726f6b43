// Typed datagram v2 components (DG-6) of two states besides the reference one, each through its
// bytes and back: the game's (gen-game/arena.ts, `state Arena` of examples/game/wire, whose players'
// health is ranged: WIRE-29 refuses a value past 100 on both sides, where it is), and the second
// state's (gen-arena/arena.ts, spec/tests/state/arena.wire: 64-bit integers, a float of 64 bits, a
// bool and a bit set in one group, and a packed quaternion of 7 bits a component).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DecodeError, EncodeError } from "../gen-game/protocol.js";
import { ArenaComponent as GameComponent } from "../gen-game/arena.js";
// Each generated codec carries its own copy of the runtime, and so its own error classes.
import { DecodeError as FighterDecodeError, Stance } from "../gen-arena/protocol.js";
import { ArenaComponent as FighterComponent } from "../gen-arena/arena.js";

/** What `f` throws, which must be an instance of `type`. */
function thrown<E>(type: new (...args: never[]) => E, f: () => unknown): E {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof type, `not a ${type.name}: ${String(e)}`);
    return e;
  }
  assert.fail("no error");
}

describe("the game's ArenaComponent", () => {
  // One value of every group, each exact on the wire (a velocity in whole 1/64 m/s).
  const values: GameComponent[] = [
    { kind: "position", value: { x: 12.5, y: -3.25 } },
    { kind: "velocity", value: { vx: 1.5, vy: -0.015625 } },
    { kind: "player", value: { aim: 200, health: 100, weapon: 1 } },
    { kind: "projectile", value: { owner: 513 } },
    { kind: "pickup", value: { item: 0 } },
  ];

  it("gives back every group through its bytes, typed by its index", () => {
    values.forEach((c, index) => {
      const change = GameComponent.toComponent(c);
      assert.equal(change.type, index);
      assert.equal(GameComponent.componentType(c), index);
      assert.deepEqual(GameComponent.fromComponent(change), c);
    });
    assert.deepEqual(
      [...GameComponent.toComponent(values[2]!).data!],
      [200, 100, 1],
      "a player as kind 6 writes it",
    );
  });

  it("refuses a health past 100 to write, and to read where it is (WIRE-29)", () => {
    const e = thrown(EncodeError, () =>
      GameComponent.toComponent({ kind: "player", value: { aim: 0, health: 101, weapon: 0 } }),
    );
    assert.deepEqual([e.kind, e.path], ["over_width", "health"]);
    const d = thrown(DecodeError, () =>
      GameComponent.fromComponent({ type: 2, data: Uint8Array.of(7, 101, 0) }),
    );
    assert.deepEqual([d.kind, d.offset, d.path], ["over_width", 1, "player.health"]);
  });

  it("skips a removal and an unknown type, and refuses a short or long component", () => {
    assert.equal(GameComponent.fromComponent({ type: 2, data: null }), undefined);
    assert.equal(GameComponent.fromComponent({ type: 5, data: Uint8Array.of(1) }), undefined);
    let d = thrown(DecodeError, () =>
      GameComponent.fromComponent({ type: 3, data: Uint8Array.of(1) }),
    );
    assert.deepEqual([d.kind, d.offset, d.path], ["truncated", 1, "projectile.owner"]);
    d = thrown(DecodeError, () =>
      GameComponent.fromComponent({ type: 4, data: Uint8Array.of(1, 0) }),
    );
    assert.deepEqual([d.kind, d.offset, d.path], ["trailing_bytes", 1, "pickup"]);
  });
});

describe("the second state's ArenaComponent", () => {
  const values: FighterComponent[] = [
    {
      kind: "motion",
      value: { px: -1234.0625, py: 0.5, alt: -(1n << 40n), heading: 300 * (360 / 65536) },
    },
    {
      kind: "score",
      value: { points: (1n << 63n) + 5n, alive: true, stance: Stance.SPRINTING, rank: 65535 },
    },
    { kind: "shield", value: { strength: 12.5, regen: 7 } },
    { kind: "aim", value: { q: { largest: 2, rest: [-20, 0, 31] } } },
  ];

  it("gives back every group through its bytes, the packed aim padded to a byte", () => {
    values.forEach((c, index) => {
      const change = FighterComponent.toComponent(c);
      assert.equal(change.type, index);
      assert.deepEqual(FighterComponent.fromComponent(change), c);
    });
    // 2 bits of the largest and 3 of 7 bits: 23 bits, 3 bytes.
    const aim = FighterComponent.toComponent(values[3]!).data!;
    assert.equal(aim.length, 3);
    const d = thrown(FighterDecodeError, () =>
      FighterComponent.fromComponent({ type: 3, data: Uint8Array.of(...aim, 0) }),
    );
    assert.deepEqual([d.kind, d.offset, d.path], ["trailing_bytes", 3, "aim"]);
  });

  it("refuses a reserved bit of the stance where it is, under the group", () => {
    const score = FighterComponent.toComponent(values[1]!).data!.slice();
    // points (8 bytes), alive (1), then the stance, whose bit 7 is reserved.
    score[9] = 0x80;
    const d = thrown(FighterDecodeError, () =>
      FighterComponent.fromComponent({ type: 1, data: score }),
    );
    assert.deepEqual([d.kind, d.offset, d.path], ["reserved_bit", 9, "score.stance"]);
  });
});
