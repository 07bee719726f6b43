// The arena's TypeScript client: the runtime's AckedClientHalf over one of the schemas that
// `ackwire gen --lang ts` writes for `state Arena` of the game's own layout (wire/game.wire):
// `Arena` (kind 6) or `CodedArena` (kind 13, the profile the layout chose by declaring `coded
// frame ArenaCoded`), and what the game draws from it: nothing here knows the wire, the deltas,
// the bases or the coding.

import type { ArenaEvent, Command, Entity } from "./gen/protocol.js";
import type { AckedSchema, Delivery } from "./gen/runtime/sessions/acked.js";
import { AckedClientHalf } from "./gen/runtime/sessions/acked_half.js";

/** What the game draws of one entity, in metres. */
export interface Sprite {
  id: number;
  kind: "player" | "projectile" | "pickup";
  x: number;
  y: number;
  /** A player's hit points. */
  health?: number;
}

/** One player's client of the arena, over the frames of schema `C`'s changes. */
export class ArenaClient<C> {
  private readonly half: AckedClientHalf<Entity, C, ArenaEvent, Command>;
  private readonly frameName: string;

  /** A client of `schema`'s frames (`Arena`'s, kind 6, or `CodedArena`'s, kind 13). */
  constructor(schema: AckedSchema<Entity, C, ArenaEvent, Command>) {
    this.half = new AckedClientHalf(schema, 16);
    this.frameName = schema.FRAME_NAME;
  }

  /** A frame of the server's arrives (at `ms` on the client's clock). */
  receive(ms: number, bytes: Uint8Array): Delivery<ArenaEvent> {
    return this.half.handleFrame({ tick: 0, ms }, this.frameName, bytes);
  }

  /** A client tick: the player's command goes out with the ack; returns the frames to send. */
  tick(ms: number, command: Command): Uint8Array[] {
    this.half.handleTick({ tick: 0, ms }, command);
    const out: Uint8Array[] = [];
    for (let t = this.half.pollTransmit(); t !== undefined; t = this.half.pollTransmit()) {
      out.push(t.bytes);
    }
    return out;
  }

  /** The tick of the state shown, if any. */
  shownTick(): number | undefined {
    return this.half.shownTick();
  }

  /** The check of the state shown (CHECK-2), what the server's S_N hashes to. */
  stateHash(): number {
    return this.half.stateHash() >>> 0;
  }

  /** What to draw: every entity shown, ascending by id. */
  sprites(): Sprite[] {
    const out: Sprite[] = [];
    this.half.forEachShown((id, e) => {
      // The record keeps positions as whole steps of 1/256 m (`quant(i32, 1/256)`).
      const at = { id, x: e.x / 256, y: e.y / 256 };
      if (e.player !== undefined) {
        out.push({ ...at, kind: "player", health: e.player.health });
      } else if (e.projectile !== undefined) {
        out.push({ ...at, kind: "projectile" });
      } else {
        out.push({ ...at, kind: "pickup" });
      }
    });
    return out;
  }
}
