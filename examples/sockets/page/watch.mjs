// Reads what a person watching the cube page reads: the text under its canvas (#result), from
// the headless Chromium that shows it, over the DevTools protocol, while the page runs and at
// its end. scripts/examples.sh runs it beside the browser run and checks what it printed.
//
//   node --experimental-websocket watch.mjs PROFILE URL [SECONDS]
//
// PROFILE is the Chromium's --user-data-dir (started with --remote-debugging-port=0, which
// writes the port it chose into PROFILE/DevToolsActivePort), URL the page's address. Prints
// `result: TEXT` each time the text changes, and exits 0 once the text is final (the run done,
// the connection lost, the modules not loaded, or an error), 1 when SECONDS (default 90) pass
// first or the browser cannot be reached.

import { readFile } from "node:fs/promises";

const [profile, url, seconds = "90"] = process.argv.slice(2);
if (profile === undefined || url === undefined) {
  console.error("usage: watch.mjs PROFILE URL [SECONDS]");
  process.exit(2);
}
const deadline = Date.now() + Number(seconds) * 1000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const FINAL = [
  "cube-page: done",
  "cube-page: the connection closed",
  "cube-page: not run",
  "cube-page: error",
];

/** Calls `attempt` every 100 ms until it returns a value, or fails past the deadline. */
async function until(what, attempt) {
  while (Date.now() < deadline) {
    try {
      const value = await attempt();
      if (value !== undefined) {
        return value;
      }
    } catch {
      // Not there yet: the browser is starting, or the page is not open yet.
    }
    await sleep(100);
  }
  console.error(`watch.mjs: ${what} within ${seconds} s`);
  process.exit(1);
}

const port = await until("no DevToolsActivePort", async () => {
  const text = await readFile(`${profile}/DevToolsActivePort`, "utf8");
  const first = text.split("\n")[0];
  return /^[0-9]+$/.test(first) ? first : undefined;
});
const socketUrl = await until(`no page at ${url}`, async () => {
  const pages = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  return pages.find((p) => p.type === "page" && p.url === url)?.webSocketDebuggerUrl;
});

const ws = new WebSocket(socketUrl);
const replies = new Map();
let nextId = 1;
ws.onmessage = (m) => {
  const reply = JSON.parse(m.data);
  replies.get(reply.id)?.(reply);
  replies.delete(reply.id);
};
await new Promise((resolve, reject) => {
  ws.onopen = resolve;
  ws.onerror = () => reject(new Error(`cannot open ${socketUrl}`));
});
ws.onclose = () => {
  console.error("watch.mjs: the browser closed the DevTools connection");
  process.exit(1);
};

/** The text under the canvas, as the page shows it now. */
function read() {
  const id = nextId++;
  return new Promise((resolve) => {
    replies.set(id, (reply) => resolve(reply.result?.result?.value ?? ""));
    ws.send(
      JSON.stringify({
        id,
        method: "Runtime.evaluate",
        params: {
          expression: 'document.getElementById("result")?.textContent ?? ""',
          returnByValue: true,
        },
      }),
    );
  });
}

let last;
while (Date.now() < deadline) {
  const text = await read();
  if (text !== last) {
    console.log(`result: ${text}`);
    last = text;
  }
  if (FINAL.some((f) => text.startsWith(f))) {
    ws.onclose = null;
    ws.close();
    process.exit(0);
  }
  await sleep(50);
}
console.error(`watch.mjs: the page's text was not final within ${seconds} s: ${last}`);
process.exit(1);
