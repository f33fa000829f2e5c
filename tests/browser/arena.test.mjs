// The arena in Chromium: a server running one round of a classic arena
// (`--arena classic --arena-rounds 1`) and two network bots entering it
// (`mille bot --connect --arena`, two built-in levels); once the round is
// played, /arena shows the standings (checked with axe-core at desktop
// and phone widths), they agree with the games' results, a game's link
// opens its replay with both seats marked bots, and the ladder lists the
// bots in their own section with a link to the arena.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, launch, newPlayer, screenshot, noErrors, startBot } from "./harness.mjs";

let server;
let browser;
const bots = [];
let arena;

before(async () => {
  server = await startServer({ args: ["--arena", "classic", "--arena-rounds", "1", "--coup-fourre-window", "0"] });
  browser = await launch();
  bots.push(await startBot(server, browser, "Rando", { owner: "alice", description: "mille's random player", level: "random", arena: true }));
  bots.push(await startBot(server, browser, "Classy", { owner: "bob", description: "mille's classic player", level: "classic", arena: true }));
  // The round: the pair's two games on one deal, the seats swapped.
  const deadline = Date.now() + 120000;
  for (;;) {
    arena = await (await fetch(`${server.url}api/arena`)).json();
    if (arena.games?.length >= 2) break;
    if (Date.now() > deadline) throw new Error(`the arena's round was not played in 120 s: ${JSON.stringify(arena)}\n${bots.map((b) => b.log()).join("\n")}`);
    await new Promise((r) => setTimeout(r, 250));
  }
});

after(async () => {
  for (const b of bots) await b.stop();
  await browser?.close();
  await server?.stop();
});

const WIDTHS = [
  ["desktop", { width: 1280, height: 800 }],
  ["phone", { width: 390, height: 844 }],
];

for (const [label, viewport] of WIDTHS) {
  test(`the arena's standings and a game's replay (${label})`, async () => {
    const p = await newPlayer(browser, { viewport });
    const { page } = p;
    try {
      await page.goto(`${server.url}arena`);
      const rows = page.locator("table.standings tbody tr");
      await rows.first().waitFor();
      assert.equal(await rows.count(), 2);
      // The standings agree with the games' results: wins and points per bot.
      const tally = new Map();
      for (const g of arena.games) {
        for (const s of g.seats) {
          const t = tally.get(s.name) || { games: 0, wins: 0, points: 0 };
          t.games += 1;
          t.wins += s.won ? 1 : 0;
          t.points += s.score;
          tally.set(s.name, t);
        }
      }
      for (const [i, s] of arena.standings.entries()) {
        const cells = await rows.nth(i).locator("td, th").allInnerTexts();
        const t = tally.get(s.name);
        assert.deepEqual(cells.slice(0, 8), [String(s.place), s.name, s.name === "Rando" ? "alice" : "bob", String(t.games), String(t.wins), String(t.games - t.wins), String(s.forfeits), String(t.points)], `${s.name}'s line`);
        assert.match(cells[8], /^\d+(\?\s*\(provisional\))?$/, "a rating, ? while provisional");
      }
      assert.equal(await page.locator("#nav-arena").isVisible(), true, "the header links the arena");
      // A wide table scrolls by itself: the page does not.
      assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= viewport.width, "nothing overflows the page");
      await screenshot(page, `arena-${label}`);

      // A game's link opens its replay: both seats are bots'.
      const first = arena.games[0];
      await page.getByRole("link", { name: `Replay game ${first.table}` }).click();
      await page.waitForURL(new RegExp(`/games/${first.table}$`));
      await page.locator("#step-line[data-ready]").waitFor();
      assert.equal(await page.locator(".players-list li .tag.bot").count(), 2);
      assert.match(await page.locator("main").innerText(), /An arena game \(round 1\)/);
      await screenshot(page, `arena-game-${label}`);

      // A bot's page says who runs it and what it is.
      await page.locator(".players-list").getByRole("link", { name: first.seats[0].name, exact: true }).click();
      await page.waitForURL(/\/players\//);
      const owner = first.seats[0].name === "Rando" ? "alice: mille's random player" : "bob: mille's classic player";
      await page.locator(".bot-line", { hasText: `Bot by ${owner}` }).waitFor();
      assert.equal(await page.locator("h1 .tag.bot").count(), 1);

      // The ladder: the bots in their own section, and the arena linked.
      await page.goto(`${server.url}ladder?category=mille-classic-2`);
      await page.locator("table.ladder.bots").waitFor();
      assert.deepEqual((await page.locator("table.ladder.bots tbody th a").allInnerTexts()).sort(), ["Classy", "Rando"]);
      assert.equal(await page.getByRole("heading", { name: "Bots" }).count(), 1);
      await page.locator(".arena-link a[href='/arena']").waitFor();
      noErrors(p, assert);
    } finally {
      await p.context.close();
    }
  });
}

test("a game lost by forfeit says so on its page (its document given a forfeit)", async () => {
  const p = await newPlayer(browser);
  const { page } = p;
  const game = arena.games[0];
  try {
    // The arena's real game, as if its first seat had lost it by forfeit.
    await page.route(`**/api/games/${game.table}`, async (route) => {
      const res = await route.fetch();
      const doc = await res.json();
      doc.forfeit = { seat: 0, name: game.seats[0].name, reason: "took more than 10 s over a decision" };
      await route.fulfill({ response: res, json: doc });
    });
    await page.goto(`${server.url}games/${game.table}`);
    await page.locator(".forfeit", { hasText: `${game.seats[0].name} lost by forfeit: took more than 10 s over a decision` }).waitFor();
    await page.locator("#step-line[data-ready]").waitFor();
    await screenshot(page, "arena-game-forfeit");
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});

test("a server without an arena says so on /arena", async () => {
  const plain = await startServer();
  const p = await newPlayer(browser);
  try {
    const res = await p.page.goto(`${plain.url}arena`);
    assert.equal(res.status(), 404);
    await p.page.getByText("This server runs no arena", { exact: false }).waitFor();
    assert.equal(await p.page.locator("#nav-arena").isVisible(), false);
  } finally {
    await p.context.close();
    await plain.stop();
  }
});
