// Every kind of Mille Bornes table the new-table form offers, opened
// against the real server: each is a screen of its own (2 to 6 players,
// every ruleset), checked with axe-core and pictured. (A file of its own:
// it takes minutes.)

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, launch, newPlayer, signIn, screenshot, noErrors } from "./harness.mjs";

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test("every kind of Mille Bornes table the form offers opens", async () => {
  const p = await newPlayer(browser);
  const { page } = p;
  try {
    await signIn(p, server.url, "tries-all");
    await page.getByRole("button", { name: "New Mille Bornes table" }).click();
    const offers = [];
    for (const rules of await page.locator("#rules option").evaluateAll((os) => os.map((o) => o.value))) {
      await page.locator("#rules").selectOption(rules);
      for (const players of await page.locator("#players option").evaluateAll((os) => os.map((o) => o.value))) offers.push([rules, players]);
    }
    assert.ok(offers.length >= 6, `the form offers ${offers.length} kinds of table`);
    for (const [i, [rules, players]] of offers.entries()) {
      // The server keeps a player to a few tables not over yet: another
      // name (the page's "change") for the next ones.
      if (i > 0 && i % 4 === 0) {
        await page.locator("#who a").click();
        await page.locator("#name").fill(`tries-all-${i}`);
        await page.getByRole("button", { name: "Play" }).click();
        await page.locator("#who strong").getByText(`tries-all-${i}`, { exact: true }).waitFor();
      }
      if (!(await page.locator("#rules").isVisible())) await page.getByRole("button", { name: "New Mille Bornes table" }).click();
      await page.locator("#rules").selectOption(rules);
      await page.locator("#players").selectOption(players);
      await page.locator("#create").click();
      await Promise.race([page.locator(".mille[data-obs]").waitFor(), page.locator("#create-problem:not(:empty)").waitFor()]);
      assert.equal(await page.locator("#create-problem").count(), 0, `${rules} for ${players}: ${await page.locator("#create-problem").innerText().catch(() => "")}`);
      // Every side is drawn: one per team.
      const teams = Number(players) === 4 ? 2 : Number(players) === 6 ? 3 : Number(players);
      assert.equal(await page.locator(".mille .side").count(), teams, `${rules} for ${players}: the sides`);
      // Each kind's table is a screen of its own: checked and pictured.
      await screenshot(page, `mille-${rules}-${players}`);
      await page.locator("#leave").click();
      await page.getByRole("button", { name: "Leave the table" }).click();
      await page.getByRole("button", { name: "New Mille Bornes table" }).waitFor();
    }
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});
