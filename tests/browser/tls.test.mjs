// The page over HTTPS: a real server with a certificate the test makes
// (`--tls-cert`, `--tls-key`), the page loaded from https://, its
// WebSocket on wss:// to the same host, a sign-in and moves at a Mille
// Bornes table.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, launch, newPlayer, screenshot, noErrors, openMilleTable, makeCertificate } from "./harness.mjs";

let server;
let browser;
let certs;

before(async () => {
  certs = mkdtempSync(join(tmpdir(), "page-tls-"));
  server = await startServer({ tls: makeCertificate(certs) });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (certs) rmSync(certs, { recursive: true, force: true });
});

const TABLE = ".mille";

test("the page over HTTPS signs in and plays over WSS", async () => {
  assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+\/$/);
  // The test's certificate is trusted by nobody: the context lets it be.
  const p = await newPlayer(browser, { ignoreHTTPSErrors: true });
  try {
    const { page } = p;
    const sockets = [];
    page.on("websocket", (ws) => sockets.push(ws.url()));
    await openMilleTable(p, server.url, "secure");
    assert.ok(sockets.length > 0, "the page opened a WebSocket");
    for (const url of sockets) assert.equal(url, `wss://${server.addr}/ws`);
    assert.equal(await page.evaluate(() => location.protocol), "https:");

    // A move: the draw (after letting a coup-fourré chance pass, which
    // bsd rules may give before the first draw), answered by the server.
    await page.waitForFunction((sel) => /(^|\|)(draw|decline)(\||$)/.test(document.querySelector(sel).dataset.legal), TABLE, { timeout: 15000 });
    const legal = await page.evaluate((sel) => document.querySelector(sel).dataset.legal.split("|"), TABLE);
    if (legal.includes("decline")) await page.keyboard.press("p");
    else await page.locator(`${TABLE} [data-target="draw"] .pile`).click();
    await page.waitForFunction((sel) => document.querySelector(sel).dataset.drawn === "true", TABLE, { timeout: 15000 });
    // Then a card played or discarded from the hand, by double-click.
    const obs = await page.evaluate((sel) => document.querySelector(sel).dataset.obs, TABLE);
    const count = await page.locator(`${TABLE} .hand-card`).count();
    await page.locator(`${TABLE} .hand-card`).first().dblclick();
    await page.waitForFunction(([sel, prev]) => document.querySelector(sel).dataset.obs !== prev, [TABLE, obs], { timeout: 15000 });
    assert.ok((await page.locator(`${TABLE} .hand-card`).count()) < count, "the card left the hand");
    assert.equal(await page.locator(".bubble").count(), 0, "no move was refused");
    await screenshot(page, "mille-over-https");
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});
