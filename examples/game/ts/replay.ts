// Holds the arena's TypeScript client to a recorded stream (vectors/streams/arena.txt of kind 6,
// or with `coded` first arena_coded.txt of kind 13, written by the Rust server's run: `cargo run
// -p ackwire-example-game --example record_stream [coded]`): every
// frame the Rust client received, in the order it arrived through loss, duplication and
// reordering, goes to the TypeScript client, which must show the same tick with the same check
// (the hash of the server's S_N) or drop the frame as the Rust client did; at the end of every
// tick it must send the same kind 7 bytes, carrying the same command. Exits 1 at the first
// difference, naming its line.

import { readFileSync } from "node:fs";
import { Arena, CodedArena } from "./gen/arena.js";
import { ArenaClient } from "./client.js";

function bytesOf(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) {
    out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  }
  return out;
}

function hexOf(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function main(path: string, coded: boolean): void {
  const lines = readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.length > 0);
  const client = coded ? new ArenaClient(CodedArena) : new ArenaClient(Arena);
  let [frames, shown, dropped, acks] = [0, 0, 0, 0];
  const fail = (n: number, why: string): never => {
    throw new Error(`${path}:${n + 1}: ${why}`);
  };
  for (let n = 0; n < lines.length; n++) {
    const [what, ...rest] = lines[n].split(" ");
    if (what === "frame") {
      frames += 1;
      const d = client.receive(n, bytesOf(rest[0]));
      const next = (lines[n + 1] ?? "").split(" ");
      n += 1;
      if (next[0] === "shown") {
        if (d.kind !== "shown") {
          fail(n, `the client did not show the frame (${d.kind}); the Rust client did`);
        }
        const [tick, hash] = [Number(next[1]), next[2]];
        const got = client.stateHash().toString(16).padStart(8, "0");
        if (client.shownTick() !== tick || got !== hash) {
          fail(n, `the client shows tick ${client.shownTick()} as ${got}, not ${tick} as ${hash}`);
        }
        shown += 1;
      } else if (next[0] === "dropped") {
        if (d.kind !== "stale" && d.kind !== "unknown_base") {
          fail(n, `the client did not drop the frame (${d.kind}); the Rust client did`);
        }
        dropped += 1;
      } else {
        fail(n, `a frame is followed by ${next[0]}`);
      }
    } else if (what === "ack") {
      // The command the Rust client sent this tick is the newest input of its ack.
      const want = bytesOf(rest[0]);
      const inputs = Arena.decodeAck(want).inputs;
      const command = inputs[inputs.length - 1] ?? fail(n, "an ack without a command");
      const sent = client.tick(n, command);
      if (sent.length !== 1 || hexOf(sent[0]) !== rest[0]) {
        fail(n, `the client sent ${sent.map(hexOf).join(", ")}, not ${rest[0]}`);
      }
      acks += 1;
    } else {
      fail(n, `unknown line ${what}`);
    }
  }
  if (shown === 0 || dropped === 0 || acks === 0) {
    throw new Error(`${path}: a stream of ${shown} shown, ${dropped} dropped, ${acks} acks`);
  }
  const sprites = client.sprites();
  const players = sprites.filter((s) => s.kind === "player").length;
  console.log(
    `replay: ${frames} frames: ${shown} shown with the server's check, ${dropped} dropped as the ` +
      `Rust client did; ${acks} acks byte for byte; at tick ${client.shownTick()} ` +
      `${sprites.length} entities shown (${players} players)`,
  );
}

const coded = process.argv[2] === "coded";
main(process.argv[coded ? 3 : 2] ?? "vectors/streams/arena.txt", coded);
