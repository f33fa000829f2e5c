// The page and a server that goes away: the header says the link is down
// and how long the seat is held, a move made meanwhile waits, and when a
// server answers again on the same address (restarted from the same
// database) the page takes its seat back by itself, from the server's
// snapshot, and the waiting move goes through once.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, launch, newPlayer, screenshot, noErrors, openMilleTable } from "./harness.mjs";

let browser;

before(async () => {
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

/** The cards in the hand, as the page shows them. */
function hand(page) {
  return page.locator(".mille .hand-card").evaluateAll((els) => els.map((e) => e.dataset.card));
}

test("a server killed mid-hand: the page says so, holds the seat, and comes back to it by itself", async () => {
  const data = mkdtempSync(join(tmpdir(), "page-restart-"));
  let server = await startServer({ data, away: 45 });
  const p = await newPlayer(browser);
  const { page } = p;
  try {
    const table = await openMilleTable(p, server.url, "phoenix");
    // The player's turn, before the draw.
    await page.waitForFunction(() => (document.querySelector(".mille")?.dataset.legal || "").split("|").includes("draw"));
    const before = await hand(page);
    assert.equal(before.length, 6);

    await server.kill();
    const conn = page.locator("#conn");
    await conn.filter({ hasText: /reconnecting \(attempt \d+\): your seat is held for \d+ s/ }).waitFor();
    const held = Number(/held for (\d+) s/.exec(await conn.innerText())[1]);
    assert.ok(held > 30 && held <= 45, `the seat is held for the server's away time: ${held} s`);
    await screenshot(page, "reconnecting");

    // A draw while the link is down waits for it.
    await page.locator('.mille [data-target="draw"] .pile').click();
    await page.waitForTimeout(300);
    assert.equal((await hand(page)).length, 6, "nothing happens before the server answers");

    server = await startServer({ data, listen: server.addr });
    await page.locator("#conn.open").waitFor({ timeout: 20000 });
    assert.match(page.url(), new RegExp(`#/table/${table}$`));
    // The draw went through, once: the same six cards and one more.
    await page.waitForFunction(() => document.querySelectorAll(".mille .hand-card").length === 7, null, { timeout: 10000 });
    const after = await hand(page);
    for (const card of before) {
      const i = after.indexOf(card);
      assert.ok(i >= 0, `${card} is still in the hand`);
      after.splice(i, 1);
    }
    assert.equal(after.length, 1, "one card drawn");
    const legal = await page.evaluate(() => document.querySelector(".mille").dataset.legal.split("|"));
    assert.ok(!legal.includes("draw") && legal.some((a) => a.startsWith("discard")), `the turn goes on after the draw: ${legal}`);
    // While the server was down, Chromium itself logged each refused
    // attempt; the page logged nothing else.
    const refused = /^console: WebSocket connection to '.*' failed: .*ERR_CONNECTION_REFUSED$/;
    assert.ok(p.errors.some((e) => refused.test(e)), "the page tried again while the server was down");
    p.errors = p.errors.filter((e) => !refused.test(e));
    noErrors(p, assert);
  } finally {
    await p.context.close();
    await server.stop();
    rmSync(data, { recursive: true, force: true });
  }
});
