// A finished game's review on its page in Chromium: ann's Mille Bornes
// game against the classic computer, her seat reviewed (the server makes
// it in the background while the page waits), then stepped through
// decision by decision by keyboard and by the chart, the board following;
// checked with axe-core at desktop and phone widths; and a cubes game's
// review reached from the game's end, as the board shows it. The server's review
// budget is tiny: the test is about the page, not the judge.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, launch, newPlayer, screenshot, noErrors, seriousViolations } from "./harness.mjs";

let server;
let browser;
let table;

/** Plays a whole mille bsd game as `name` against the classic computer
 *  from inside `page`, choosing plays over discards; answers the table's
 *  number once the game is over. */
async function playGame(page, name, game = "mille") {
  return page.evaluate(
    async ({ name, game }) => {
      const ws = new WebSocket(`ws://${location.host}/ws`);
      const create =
        game === "mille"
          ? { type: "create", game, setup: { rules: "bsd", players: 2 }, seats: [{ kind: "human" }, { kind: "computer", level: "classic" }], sit: 0 }
          : { type: "create", game, setup: { game: "blitz" }, seats: [{ kind: "human" }, { kind: "computer", level: "steady" }], sit: 0 };
      return new Promise((done, fail) => {
        let table = null;
        let id = 0;
        let movedAt = -1;
        const send = (m) => ws.send(JSON.stringify(m));
        const timer = setTimeout(() => fail(new Error("the game did not end in 150 s")), 150000);
        ws.onopen = () => send({ type: "hello", version: 1, name, client: "review test" });
        ws.onerror = () => fail(new Error("the WebSocket failed"));
        ws.onmessage = (e) => {
          const m = JSON.parse(e.data);
          if (m.type === "welcome") send(create);
          else if (m.type === "created") table = m.table.id;
          else if (m.type === "error") fail(new Error(m.message));
          else if ((m.type === "joined" || m.type === "update") && m.observation) {
            const o = m.observation;
            if (o.status?.phase === "game_over" || typeof o.winner === "number") {
              clearTimeout(timer);
              ws.close();
              done(table);
              return;
            }
            if (o.status?.phase === "hand_over") send({ type: "ready", table });
            const legal = o.legal || [];
            if (!legal.length || m.seq === movedAt) return;
            movedAt = m.seq;
            const hold = (o.hold_value || 0) >= 300;
            const action = game === "mille" ? legal.find((a) => a === "end_trip") || legal.find((a) => a.startsWith("play ")) || legal[0] : legal.find((a) => (a === "Hold") === hold) || legal[0];
            send({ type: "move", table, id: ++id, action });
          }
        };
      });
    },
    { name, game },
  );
}

before(async () => {
  server = await startServer({ handPause: 1, args: ["--coup-fourre-window", "0", "--review-iterations", "60"] });
  browser = await launch();
  const driver = await newPlayer(browser);
  try {
    await driver.page.goto(`${server.url}ladder`);
    table = await playGame(driver.page, "ann");
  } finally {
    await driver.context.close();
  }
  for (let i = 0; i < 100; i++) {
    if ((await fetch(`${server.url}api/games/${table}`)).ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`game ${table} was never recorded`);
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const WIDTHS = [
  ["desktop", { width: 1280, height: 800 }],
  ["phone", { width: 390, height: 844 }],
];

for (const [label, viewport] of WIDTHS) {
  test(`ann's decisions reviewed over the replay (${label})`, async () => {
    const p = await newPlayer(browser, { viewport });
    const { page } = p;
    try {
      await page.goto(`${server.url}games/${table}`);
      await page.locator("#step-line[data-ready]").waitFor();
      // One button per seat; ann's, by keyboard.
      assert.equal(await page.locator("button.review-seat").count(), 2);
      await page.getByRole("button", { name: "Review ann" }).focus();
      await page.keyboard.press("Enter");
      // The first time, it is made while the page waits; then it is drawn.
      await page.locator("#review-now .review-at").waitFor({ timeout: 120000 });
      assert.match(page.url(), /#review-0$/);
      assert.equal(await page.locator("#seen-by").inputValue(), "0", "the board is seen by the seat reviewed");
      assert.match(await page.locator(".review-summary").innerText(), /ann: accuracy \d+% over \d+ decisions/);
      const count = await page.locator("#review-decision option").count();
      assert.ok(count > 5, `ann decided many times (${count})`);
      assert.equal(await page.locator("#review-chart rect.bar").count(), count, "a bar per decision");
      assert.match(await page.locator("#review-chart").getAttribute("aria-label"), /Loss at each of \d+ decisions/);
      assert.ok((await page.locator(".review-hands tbody tr").count()) >= 1, "the hands' summaries");
      const first = await page.locator("#review-now").innerText();
      assert.match(first, /Decision 1 of \d+ · Hand 1/);
      assert.match(first, /Played\s+\S/);
      assert.match(first, /Preferred\s+\S/);
      const step = async () => Number(await page.locator(".table-view").getAttribute("data-step"));
      await screenshot(page, `review-first-${label}`);

      // N steps through the decisions; the board follows, never back.
      let last = await step();
      await page.locator("#review-title").focus();
      for (let k = 2; k <= Math.min(count, 8); k++) {
        await page.keyboard.press("n");
        await page.locator("#review-now .review-at", { hasText: `Decision ${k} of ${count}` }).waitFor();
        const now = await step();
        assert.ok(now >= last, `decision ${k}'s step ${now} comes after ${last}`);
        last = now;
        assert.equal(await page.locator("#review-decision").inputValue(), String(k - 1));
      }
      await page.keyboard.press("p");
      await page.locator("#review-now .review-at", { hasText: `Decision ${Math.min(count, 8) - 1} of ${count}` }).waitFor();
      // The buttons and the list do the same.
      await page.locator("#review-decision").selectOption(String(count - 1));
      await page.locator("#review-now .review-at", { hasText: `Decision ${count} of ${count}` }).waitFor();
      assert.equal(await page.locator("#review-next").isDisabled(), true);
      await page.locator("#review-prev").click();
      await page.locator("#review-now .review-at", { hasText: `Decision ${count - 1} of ${count}` }).waitFor();
      // A bar of the chart takes the page to its decision.
      await page.locator('#review-chart rect.bar[data-i="2"]').click();
      await page.locator("#review-now .review-at", { hasText: `Decision 3 of ${count}` }).waitFor();
      assert.equal(await page.locator('#review-chart rect.bar.now').getAttribute("data-i"), "2");
      // The worst decisions, each a way to its decision.
      const worst = page.locator(".review-worst li button");
      if (await worst.count()) {
        await worst.first().click();
        const picked = Number(await page.locator("#review-decision").inputValue());
        assert.ok(picked >= 0 && picked < count);
        assert.match(await page.locator(".review-worst").innerText(), /worst decision/);
      }
      await screenshot(page, `review-stepped-${label}`);
      // Nothing is wider than the screen.
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), "no sideways scrolling");
      assert.deepEqual(await seriousViolations(page), []);

      // Opened from its address (as the game's end links to it), it is
      // there at once: kept by the server.
      await page.goto("about:blank");
      await page.goto(`${server.url}games/${table}#review-0`);
      await page.locator("#review-now .review-at", { hasText: `Decision 1 of ${count}` }).waitFor({ timeout: 20000 });
      noErrors(p, assert);
    } finally {
      await p.context.close();
    }
  });
}

test("the other seat, a computer's, is reviewed too, and a wrong seat says why", async () => {
  const p = await newPlayer(browser);
  const { page } = p;
  try {
    await page.goto(`${server.url}games/${table}#review-1`);
    await page.locator("#review-now .review-at").waitFor({ timeout: 120000 });
    assert.equal(await page.locator("#seen-by").inputValue(), "1");
    assert.equal(await page.locator("#review-seat-1").getAttribute("aria-pressed"), "true");
    const res = await fetch(`${server.url}api/games/${table}/review?seat=7`);
    assert.equal(res.status, 400);
    assert.match((await res.json()).error, /no seat 7/);
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});

test("a cubes game's end links to its review, on the same page", async () => {
  const p = await newPlayer(browser);
  const { page } = p;
  try {
    await page.goto(`${server.url}ladder`);
    const id = await playGame(page, "bea", "cubes");
    for (let i = 0; i < 100 && !(await fetch(`${server.url}api/games/${id}`)).ok; i++) await new Promise((r) => setTimeout(r, 100));
    await page.goto(`${server.url}games/${id}`);
    await page.locator("#step-line[data-ready]").waitFor();
    await page.locator("#seen-by").selectOption("0");
    await page.locator(".table-view[data-step]").waitFor();
    await page.locator("#step-last").click();
    await page.locator("#step-line", { hasText: "The game is over." }).waitFor();
    const link = page.getByRole("link", { name: "Review this game" });
    assert.equal(await link.getAttribute("href"), `/games/${id}#review-0`);
    await link.click();
    await page.locator("#review-now .review-at", { hasText: /Decision 1 of \d+ · Turn \d+/ }).waitFor({ timeout: 30000 });
    assert.match(await page.locator(".review-summary").innerText(), /bea: accuracy \d+%/);
    assert.match(await page.locator("#review-now").innerText(), /Preferred\s+(keep|hold)/);
    assert.deepEqual(await seriousViolations(page), []);
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});
