// The browser example's page: the TypeScript AckedDecoder, through the runtime's facade
// AckedClientHalf over `Reference` (the binding `ackwire gen --lang ts` writes for the reference
// protocol's `state Reference`, gen/reference.ts), on the cube scene's acked frames from
// cube-server over a WebSocket (binary messages: kind 6 frames, and 0xEE truth messages beside
// them).
//
// Per frame: the half's delivery; after a frame shown, `shown TICK HASH` (the tick shown and
// the FNV-1a of the state shown, CHECK-2) goes back as text for the server to hold
// to S_N's hash of that tick; then a client tick, whose kind 7 ack goes back as binary. The
// canvas shows the client's cubes (left) beside the truth of the tick shown (right), with the
// bytes of the last frame and the render error (mean distance, shown against truth, metres).
//
// #result tells a person watching what the page is doing: connecting, then running with its
// counts, then, once the server says `done`, the verdict the server sent just before it (the
// server alone holds S_N's hashes). scripts/examples.sh reads it while the page runs and at the
// end.
//
// Hostile bytes are the decoder's to refuse (a delivery of kind "undecodable"); a truth message
// shorter than its count says is ignored.

import type { Change, EntityState, Event, Input } from "./gen/protocol.js";
import { Reference } from "./gen/reference.js";
import { AckedClientHalf } from "./gen/runtime/sessions/acked_half.js";

/** The client half of the reference protocol's kind 6 frames. */
type Client = AckedClientHalf<EntityState, Change, Event, Input>;

/** A record's position (whole steps of 1/512 m, acked.wire's `quant(i32, 1/512)`) in metres. */
function metres(steps: number): number {
  return steps / 512;
}

/** The first byte of a truth message: u32 tick, u16 count, then u16 id, f32 x, f32 y each. */
const TRUTH = 0xee;
/** Truths kept, by tick, to measure the error of a late-shown tick. */
const TRUTHS_KEPT = 256;
/** The floor's half-width, metres (the bench's cube scene). */
const FLOOR = 32;

type Truth = Map<number, [number, number]>;

function readTruth(bytes: Uint8Array): [number, Truth] | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 7) {
    return undefined;
  }
  const tick = view.getUint32(1, true);
  const count = view.getUint16(5, true);
  if (bytes.length !== 7 + count * 10) {
    return undefined;
  }
  const out: Truth = new Map();
  for (let i = 0; i < count; i++) {
    const at = 7 + i * 10;
    out.set(view.getUint16(at, true), [
      view.getFloat32(at + 2, true),
      view.getFloat32(at + 6, true),
    ]);
  }
  return [tick, out];
}

function text(doc: Document, id: string, value: string): void {
  const el = doc.getElementById(id);
  if (el !== null) {
    el.textContent = value;
  }
}

/** Runs the page against the server it was loaded from. */
export function start(doc: Document): void {
  text(doc, "agent", navigator.userAgent);
  const half: Client = new AckedClientHalf(Reference, 16);
  const truths = new Map<number, Truth>();
  const canvas = doc.getElementById("view") as HTMLCanvasElement | null;
  const ctx = canvas?.getContext("2d") ?? null;
  const t0 = performance.now();
  let frames = 0;
  let shown = 0;
  let lastBytes = 0;
  let totalBytes = 0;
  let error = 0;
  let errorSum = 0;
  let newest = 0;
  let errors = 0;
  let inputTick = 0;
  let verdict: string | undefined;
  let done = false;
  const say = (what: string) => text(doc, "result", `cube-page: ${what}`);
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
        const mean = errors > 0 ? errorSum / errors : 0;
        const stats =
          `stats frames=${frames} shown=${shown} bytes=${totalBytes} ` +
          `bytes_per_frame=${frames > 0 ? Math.round(totalBytes / frames) : 0} ` +
          `mean_render_error_m=${mean.toFixed(4)} agent=${navigator.userAgent.includes("HeadlessChrome") ? "HeadlessChrome" : "browser"}`;
        say(
          `done after ${counts()}; the server's verdict: ${verdict ?? "none came"}` +
            ` (mean render error ${mean.toFixed(4)} m)`,
        );
        ws.send(stats);
        ws.close();
      }
      return;
    }
    const bytes = new Uint8Array(m.data as ArrayBuffer);
    if (bytes[0] === TRUTH) {
      const t = readTruth(bytes);
      if (t !== undefined) {
        truths.set(t[0], t[1]);
        truths.delete(t[0] - TRUTHS_KEPT);
        newest = t[0];
      }
      return;
    }
    const now = { tick: 0, ms: Math.round(performance.now() - t0) };
    frames += 1;
    lastBytes = bytes.length;
    totalBytes += bytes.length;
    const delivery = half.handleFrame(now, "acked", bytes);
    if (delivery.kind === "shown") {
      shown += 1;
      const tick = half.shownTick() ?? 0;
      ws.send(`shown ${tick} ${half.stateHash() >>> 0}`);
      // The render error: what the client shows against the newest truth it has seen (the
      // truth of the tick shown would be zero, which the hash already proves).
      const truth = truths.get(newest);
      if (truth !== undefined) {
        let sum = 0;
        let n = 0;
        half.forEachShown((eid, e) => {
          const t = truth.get(eid);
          if (t !== undefined) {
            sum += Math.hypot(metres(e.x) - t[0], metres(e.y) - t[1]);
            n += 1;
          }
        });
        error = n > 0 ? sum / n : 0;
        errorSum += error;
        errors += 1;
      }
      if (ctx !== null && canvas !== null && shown % 4 === 0) {
        draw(ctx, canvas, half, truth);
      }
    }
    inputTick += 1;
    half.handleTick(now, {
      tick: inputTick,
      buttons: 0,
      move_x: 0,
      move_y: 0,
      yaw: 0,
    });
    for (let t = half.pollTransmit(); t !== undefined; t = half.pollTransmit()) {
      // A copy over a plain ArrayBuffer: what WebSocket.send takes.
      ws.send(new Uint8Array(t.bytes));
    }
    say(`running: ${counts()}, showing tick ${half.shownTick() ?? "none yet"}`);
    text(
      doc,
      "stats",
      `frames=${frames} shown=${shown} tick=${half.shownTick() ?? "none"} bytes/tick=${lastBytes} ` +
        `render_error_m=${error.toFixed(4)} delivery=${delivery.kind}`,
    );
  };
}

function draw(
  ctx: CanvasRenderingContext2D,
  canvas: HTMLCanvasElement,
  half: Client,
  truth: Truth | undefined,
): void {
  const w = canvas.width / 2;
  const h = canvas.height;
  const scale = Math.min(w, h) / (2 * FLOOR);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = "#4af";
  half.forEachShown((_eid, e) => {
    ctx.fillRect(w / 2 + metres(e.x) * scale - 1, h / 2 - metres(e.y) * scale - 1, 3, 3);
  });
  ctx.fillStyle = "#fa4";
  truth?.forEach(([x, y]) => {
    ctx.fillRect(w + w / 2 + x * scale - 1, h / 2 - y * scale - 1, 3, 3);
  });
  ctx.fillStyle = "#ddd";
  ctx.fillText("client (AckedDecoder)", 8, 14);
  ctx.fillText("truth", w + 8, 14);
}
