// The page's weight and its time to first move on loopback, as the
// figures in docs/server.md are measured (a measurement, not a test):
//
//   cargo build --release -p mille
//   MILLE_BIN=target/release/mille node tests/browser/measure.mjs [RUNS]
//
// Each run is a new visitor (a fresh browser context: no cache, no name):
// open the page, give a name, open a bsd table against the classic
// computer, and draw the first card. It prints the bytes the page loaded,
// and the medians of: page load (navigation to the name form), connected
// (the name sent to `welcome`), the table shown (the create button to the
// first observation drawn) and the first move (the draw clicked to the
// card in the hand), and in all (navigation to the first move).

import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { startServer, launch, newPlayer, ROOT } from "./harness.mjs";

const runs = Number(process.argv[2] || 7);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const web = join(ROOT, "crates", "table-server", "web");
const files = readdirSync(web).map((f) => [f, statSync(join(web, f)).size]);
const total = files.reduce((a, [, n]) => a + n, 0);

const server = await startServer({ botDelay: 0 });
const browser = await launch();
const times = { load: [], connected: [], table: [], move: [], all: [] };
let loaded = null;
try {
  for (let i = 0; i < runs; i++) {
    const p = await newPlayer(browser);
    const { page } = p;
    const bytes = new Map();
    page.on("response", async (r) => {
      try {
        bytes.set(new URL(r.url()).pathname, (await r.body()).length);
      } catch {
        // A response without a body (the WebSocket upgrade).
      }
    });
    const t0 = performance.now();
    await page.goto(server.url);
    await page.locator("#name").waitFor();
    const t1 = performance.now();
    await page.locator("#name").fill(`visitor${i}`);
    await page.getByRole("button", { name: "Play" }).click();
    await page.locator("#conn.open").waitFor();
    const t2 = performance.now();
    await page.getByRole("button", { name: "New Mille Bornes table" }).click();
    await page.locator("#seat-1").selectOption("computer:classic");
    const t3 = performance.now();
    await page.locator("#create").click();
    await page.locator(".mille[data-obs]").waitFor();
    const t4 = performance.now();
    // The computer may deal itself the first turn: wait for the draw to be ours.
    await page.waitForFunction(() => (document.querySelector(".mille")?.dataset.legal || "").split("|").includes("draw"));
    const t5 = performance.now();
    await page.locator('.mille [data-target="draw"] .pile').click();
    await page.waitForFunction(() => document.querySelectorAll(".mille .hand-card").length === 7);
    const t6 = performance.now();
    times.load.push(t1 - t0);
    times.connected.push(t2 - t1);
    times.table.push(t4 - t3);
    times.move.push(t6 - t5);
    // In all, less the computer's first turn when it had one.
    times.all.push(t6 - t0 - (t5 - t4));
    loaded = bytes;
    await p.context.close();
  }
} finally {
  await browser.close();
  await server.stop();
}

const loadedBytes = [...loaded.values()].reduce((a, n) => a + n, 0);
console.log(`page files: ${files.length}, ${total} bytes in all (${(total / 1024).toFixed(1)} KiB)`);
console.log(`loaded by a visit that plays mille: ${loaded.size} files, ${loadedBytes} bytes (${(loadedBytes / 1024).toFixed(1)} KiB)`);
console.log(`runs: ${runs}; medians in ms:`);
for (const [k, v] of Object.entries(times)) console.log(`  ${k.padEnd(10)} ${median(v).toFixed(0)}   (min ${Math.min(...v).toFixed(0)}, max ${Math.max(...v).toFixed(0)})`);
