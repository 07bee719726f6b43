// The tutorial's TypeScript client (docs/replicated-state.md): the runtime's AckedClientHalf over
// `Fleet`, the binding `ackwire gen --lang ts` writes for `state Fleet` of wire/ships.wire. Run
// by ts/test.sh on the stream the Rust server's run recorded (stream.txt): every frame the Rust
// client received goes to this one in the order it arrived; it must show the same tick with the
// same check or drop the frame as the Rust client did, send the same kind 7 bytes every tick, and
// end holding the same ships. Exits 1 at the first difference, naming its line.

import { readFileSync } from "node:fs";
// ANCHOR: client
import { Fleet } from "./gen/fleet.js";
import type { Helm, SeaEvent, Ship, ShipChange } from "./gen/protocol.js";
import type { Delivery } from "./gen/runtime/sessions/acked.js";
import { AckedClientHalf } from "./gen/runtime/sessions/acked_half.js";

// The decoder and the kind 7 writer, repeating the player's last 8 orders until the server has them.
const client = new AckedClientHalf<Ship, ShipChange, SeaEvent, Helm>(Fleet, 8);

/** A kind 6 frame arrived: it is shown, or dropped when stale or onto a base no longer held. */
function onFrame(bytes: Uint8Array): Delivery<SeaEvent> {
  const d = client.handleFrame({ tick: 0, ms: 0 }, Fleet.FRAME_NAME, bytes);
  if (d.kind === "shown") {
    for (const event of d.report.events) {
      console.log(`ship ${event.value.ship} sank`);
    }
  }
  return d;
}

/** Once a tick: the player's order goes out with the ack of the newest frame shown. */
function onTick(helm: Helm): Uint8Array[] {
  client.handleTick({ tick: 0, ms: 0 }, helm);
  const out: Uint8Array[] = [];
  for (let t = client.pollTransmit(); t !== undefined; t = client.pollTransmit()) {
    out.push(t.bytes);
  }
  return out;
}

/** What to draw: each ship's position in metres (`quant(i32, 1/16)` holds 1/16 m steps). */
function draw(): string[] {
  const out: string[] = [];
  client.forEachShown((id, ship) => out.push(`ship ${id} at ${ship.x / 16} m, ${ship.y / 16} m`));
  return out;
}
// ANCHOR_END: client

const bytesOf = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (b) => parseInt(b, 16));
const hexOf = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

function replay(path: string): void {
  const lines = readFileSync(path, "utf8").split("\n").filter((l) => l.length > 0);
  const fail = (n: number, why: string): never => {
    throw new Error(`${path}:${n + 1}: ${why}`);
  };
  let [shown, dropped, acks, ships] = [0, 0, 0, 0];
  for (let n = 0; n < lines.length; n++) {
    const w = lines[n].split(" ");
    if (w[0] === "frame") {
      const d = onFrame(bytesOf(w[1]));
      const next = (lines[++n] ?? "").split(" ");
      if (next[0] === "shown") {
        const hash = client.stateHash().toString(16).padStart(8, "0");
        if (d.kind !== "shown" || client.shownTick() !== Number(next[1]) || hash !== next[2]) {
          fail(n, `shows tick ${client.shownTick()} as ${hash} (${d.kind}), not ${next[1]} as ${next[2]}`);
        }
        shown++;
      } else if (next[0] === "dropped" && (d.kind === "stale" || d.kind === "unknown_base")) {
        dropped++;
      } else {
        fail(n, `the frame was ${d.kind}, the Rust client's ${next[0]}`);
      }
    } else if (w[0] === "ack") {
      // The order the Rust client sent this tick is the newest input of its ack.
      const sent = Fleet.decodeAck(bytesOf(w[1])).inputs;
      const out = onTick(sent[sent.length - 1] ?? fail(n, "an ack without an order"));
      if (out.length !== 1 || hexOf(out[0]) !== w[1]) {
        fail(n, `sent ${out.map(hexOf).join(", ")}, not ${w[1]}`);
      }
      acks++;
    } else if (w[0] === "ship") {
      const ship = client.entity(Number(w[1]));
      if (ship === undefined || `${ship.x} ${ship.y} ${ship.health}` !== w.slice(2).join(" ")) {
        fail(n, `holds ship ${w[1]} as ${JSON.stringify(ship)}`);
      }
      ships++;
    } else {
      fail(n, `unknown line ${w[0]}`);
    }
  }
  if (shown === 0 || dropped === 0 || acks === 0 || ships !== client.shownCount) {
    throw new Error(`${path}: ${shown} shown, ${dropped} dropped, ${acks} acks, ${ships} ships`);
  }
  console.log(draw().join("\n"));
  console.log(`replay: ${shown} frames shown with the server's check, ${dropped} dropped, ${acks} acks, ${ships} ships`);
}

replay(process.argv[2] ?? "stream.txt");
