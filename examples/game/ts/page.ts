// The arena's page: the game's TypeScript client (client.ts, over the binding `ackwire gen
// --lang ts` writes from examples/game/wire) against the game's server (`cube-server --scene
// arena`) over a WebSocket: binary messages are the arena's kind 6 frames one way and its kind 7
// acks, carrying this player's commands, the other.
//
// Per frame: the client's delivery; after a frame shown, `shown TICK HASH` (the tick shown and
// the check of the state shown, CHECK-2) goes back as text for the server to hold to
// S_N's hash of that tick; then a client tick, whose ack goes back. The canvas draws what the
// client shows. #result says what the page is doing and, once the server says `done`, the
// verdict the server sent; scripts/examples.sh reads the server's log and the closing stats.

import { Buttons, type Command } from "./gen/protocol.js";
import { Arena } from "./gen/arena.js";
import { ArenaClient, type Sprite } from "./client.js";

/** Half the arena's side, metres (examples/game/src/arena.rs). */
const HALF_SIDE = 30;
/** Ticks ahead of the tick shown a command aims at: about a round trip, at 60 Hz. */
const LEAD = 8;

function text(doc: Document, id: string, value: string): void {
  const el = doc.getElementById(id);
  if (el !== null) {
    el.textContent = value;
  }
}

/**
 * An angle in degrees on the grid of `aim: quant(u8, 360/256)`: whole steps, 0 to 255, so that
 * an angle just under a turn is step 0 rather than a step 256 the encoder refuses.
 */
function onAimGrid(degrees: number): number {
  const step = 360 / 256;
  return (((Math.round(degrees / step) % 256) + 256) % 256) * step;
}

/** This player's command for `tick`: it runs in a slow circle, aiming ahead, firing now and then. */
function command(tick: number): Command {
  const a = tick / 90;
  return {
    tick,
    buttons: tick % 30 === 0 ? Buttons.FIRE : 0,
    move_x: Math.cos(a),
    move_y: Math.sin(a),
    aim: onAimGrid((a * 180) / Math.PI + 90),
  };
}

function draw(ctx: CanvasRenderingContext2D, canvas: HTMLCanvasElement, sprites: Sprite[]): void {
  const scale = Math.min(canvas.width, canvas.height) / (2 * HALF_SIDE);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  const colour = { player: "#4af", projectile: "#fa4", pickup: "#4f8" };
  for (const s of sprites) {
    const size = s.kind === "player" ? 6 : 3;
    ctx.fillStyle = colour[s.kind];
    const x = canvas.width / 2 + s.x * scale;
    const y = canvas.height / 2 - s.y * scale;
    ctx.fillRect(x - size / 2, y - size / 2, size, size);
  }
}

/** Runs the page against the server it was loaded from. */
export function start(doc: Document): void {
  text(doc, "agent", navigator.userAgent);
  // The game's server sends kind 6 frames (`Arena`).
  const client = new ArenaClient(Arena);
  const canvas = doc.getElementById("view") as HTMLCanvasElement | null;
  const ctx = canvas?.getContext("2d") ?? null;
  const t0 = performance.now();
  let [frames, shown, bytesIn] = [0, 0, 0];
  let verdict: string | undefined;
  let done = false;
  const say = (what: string) => text(doc, "result", `game-page: ${what}`);
  const counts = () => `${frames} frames received, ${shown} shown and reported`;
  const url = `ws://${location.host}/ws`;
  say(`connecting to ${url}`);
  const ws = new WebSocket(url);
  ws.binaryType = "arraybuffer";
  ws.onopen = () => {
    ws.send("hello");
    say("connected, waiting for the first frame");
  };
  ws.onclose = () => {
    if (!done) {
      say(`the connection closed after ${counts()}, before the server's verdict`);
    }
  };
  ws.onmessage = (m: MessageEvent) => {
    if (typeof m.data === "string") {
      if (m.data.startsWith("verdict: ")) {
        verdict = m.data.slice("verdict: ".length);
      } else if (m.data === "done") {
        done = true;
        const agent = navigator.userAgent.includes("HeadlessChrome") ? "HeadlessChrome" : "browser";
        say(`done after ${counts()}; the server's verdict: ${verdict ?? "none came"}`);
        ws.send(`stats frames=${frames} shown=${shown} bytes=${bytesIn} agent=${agent}`);
        ws.close();
      }
      return;
    }
    const bytes = new Uint8Array(m.data as ArrayBuffer);
    const ms = Math.round(performance.now() - t0);
    frames += 1;
    bytesIn += bytes.length;
    const delivery = client.receive(ms, bytes);
    if (delivery.kind === "shown") {
      shown += 1;
      ws.send(`shown ${client.shownTick() ?? 0} ${client.stateHash()}`);
      if (ctx !== null && canvas !== null && shown % 4 === 0) {
        draw(ctx, canvas, client.sprites());
      }
    }
    for (const ack of client.tick(ms, command((client.shownTick() ?? 0) + LEAD))) {
      // A copy over a plain ArrayBuffer: what WebSocket.send takes.
      ws.send(new Uint8Array(ack));
    }
    say(`running: ${counts()}, showing tick ${client.shownTick() ?? "none yet"}`);
    text(doc, "stats", `frames=${frames} shown=${shown} delivery=${delivery.kind}`);
  };
}
