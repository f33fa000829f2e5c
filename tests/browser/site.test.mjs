// The site's pages beside the lobby in Chromium: the ladder after a rated
// game, the player's page with its chart and games, and the game's replay
// stepped through a whole hand by keyboard, seen by a spectator and by a
// seat; each checked with axe-core at desktop and phone widths.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, launch, newPlayer, screenshot, noErrors } from "./harness.mjs";

let server;
let browser;
let table;

/** Plays a whole rated game as `name` from inside `page` (a WebSocket of
 *  the page's own origin): mille bsd against the classic computer,
 *  choosing plays over discards, or cubes against Steady Sam, holding
 *  at 300; answers the table's number once the game is over. */
async function playGame(page, name, game) {
  return page.evaluate(
    async ({ name, game }) => {
      const ws = new WebSocket(`ws://${location.host}/ws`);
      const create =
        game === "mille"
          ? { type: "create", game, setup: { rules: "bsd", players: 2 }, seats: [{ kind: "human" }, { kind: "computer", level: "classic" }], sit: 0, rated: true }
          : { type: "create", game, setup: { game: "standard" }, seats: [{ kind: "human" }, { kind: "computer", level: "steady" }], sit: 0, rated: true };
      return new Promise((done, fail) => {
        let table = null;
        let id = 0;
        let movedAt = -1;
        const send = (m) => ws.send(JSON.stringify(m));
        const timer = setTimeout(() => fail(new Error("the game did not end in 150 s")), 150000);
        ws.onopen = () => send({ type: "hello", version: 1, name, client: "site test" });
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
            let action;
            if (game === "mille") action = legal.find((a) => a === "end_trip") || legal.find((a) => a.startsWith("play ")) || legal[0];
            else {
              const hold = (o.hold_value || 0) >= 300;
              action = legal.find((a) => (a === "Hold") === hold) || legal[0];
            }
            send({ type: "move", table, id: ++id, action });
          }
        };
      });
    },
    { name, game },
  );
}

/** Waits until the game of `id` is recorded (just after its last move). */
async function recorded(id) {
  for (let i = 0; i < 100; i++) {
    if ((await fetch(`${server.url}api/games/${id}`)).ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`game ${id} was never recorded`);
}

before(async () => {
  server = await startServer({ handPause: 1, args: ["--coup-fourre-window", "0"] });
  browser = await launch();
  const driver = await newPlayer(browser);
  try {
    await driver.page.goto(`${server.url}ladder`);
    table = await playGame(driver.page, "ann", "mille");
  } finally {
    await driver.context.close();
  }
  await recorded(table);
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
  test(`the ladder, ann's page and the replay of her game (${label})`, async () => {
    const p = await newPlayer(browser, { viewport });
    const { page } = p;
    try {
      // The ladder: bsd first, ann and the computer she played, each
      // linked to a page, the computer marked, the new ratings provisional.
      await page.goto(`${server.url}ladder`);
      await page.locator("table.ladder").waitFor();
      assert.equal(await page.locator("#category").inputValue(), "mille-bsd");
      const ann = page.locator("table.ladder tbody tr", { has: page.getByRole("link", { name: "ann", exact: true }) });
      assert.match(await ann.innerText(), /\?/, "a first rating is provisional");
      const computer = page.locator("table.ladder tbody tr.computer");
      assert.equal(await computer.count(), 1);
      assert.match(await computer.innerText(), /computer: classic/);
      await screenshot(page, `site-ladder-${label}`);
      // Another category, chosen by keyboard: nobody rated yet.
      await page.locator("#category").focus();
      await page.locator("#category").selectOption("cubes-standard");
      await page.getByText("Nobody is rated in Cubes, standard yet").waitFor();
      assert.match(page.url(), /category=cubes-standard/);
      await page.locator("#category").selectOption("mille-bsd");
      await page.locator("table.ladder").waitFor();

      // ann's page, from the ladder.
      await page.getByRole("link", { name: "ann", exact: true }).click();
      await page.waitForURL(/\/players\/ann$/);
      await page.locator(".rating-card").waitFor();
      assert.match(await page.locator(".rating-card h2").first().innerText(), /Mille Bornes, bsd/);
      assert.equal(await page.locator("svg.chart circle").count(), 1, "one rated game, one point");
      assert.match(await page.locator("svg.chart").getAttribute("aria-label"), /Rating history/);
      const gameLink = page.getByRole("link", { name: `Replay game ${table}` });
      await gameLink.waitFor();
      await screenshot(page, `site-player-${label}`);

      // The game's page, from ann's.
      await gameLink.click();
      await page.waitForURL(new RegExp(`/games/${table}$`));
      await page.locator("#step-line[data-ready]").waitFor();
      await page.locator(".table-view.mille[data-obs]").waitFor();
      assert.match(await page.locator("#step-line").innerText(), /Start of the game/);
      const players = page.locator(".players-list li");
      assert.equal(await players.count(), 2);
      assert.match(await players.first().innerText(), /ann/);
      assert.equal(await page.getByRole("link", { name: "ann", exact: true }).getAttribute("href"), "/players/ann");
      await screenshot(page, `site-game-start-${label}`);

      // A whole first hand, one step at a time by keyboard, up to the
      // first step of the second hand.
      const hands = await page.locator("#hand option").evaluateAll((os) => os.map((o) => Number(o.value)));
      assert.ok(hands.length >= 2, `a bsd game to 5000 has several hands (${hands.length})`);
      const step = async () => Number(await page.locator(".table-view").getAttribute("data-step"));
      await page.locator("#step-forward").focus();
      let sawHandOver = false;
      for (let k = 1; k <= hands[1]; k++) {
        await page.keyboard.press("ArrowRight");
        assert.equal(await step(), k);
        if ((await page.locator(".table-view").getAttribute("data-phase")) === "hand_over") sawHandOver = true;
      }
      assert.ok(sawHandOver, "the hand's end is shown before the next deal");
      assert.equal(await page.locator("#hand").inputValue(), String(hands[1]));
      assert.match(await page.locator("#step-line").innerText(), new RegExp(`Step ${hands[1]} of`));
      // Back, Home, End, and a hand chosen from the list.
      await page.keyboard.press("ArrowLeft");
      assert.equal(await step(), hands[1] - 1);
      await page.keyboard.press("Home");
      assert.equal(await step(), 0);
      assert.equal(await page.locator("#step-back").isDisabled(), true);
      await page.keyboard.press("End");
      await page.locator("#step-line", { hasText: "The game is over." }).waitFor();
      assert.equal(await page.locator("#step-forward").isDisabled(), true);
      await page.locator("#hand").selectOption(String(hands[1]));
      assert.equal(await step(), hands[1]);
      await screenshot(page, `site-game-hand-${label}`);

      // Seen by ann: the same moment, with her hand; a spectator has none.
      assert.equal(await page.locator(".table-view .hand-card").count(), 0);
      await page.locator("#seen-by").selectOption("0");
      await page.locator(".table-view .hand-card").first().waitFor();
      assert.equal(await step(), hands[1]);
      await page.locator("#step-forward").click();
      assert.equal(await step(), hands[1] + 1);
      await screenshot(page, `site-game-seat-${label}`);
      noErrors(p, assert);
    } finally {
      await p.context.close();
    }
  });
}

test("a wrong address says what is wrong", async () => {
  const p = await newPlayer(browser);
  try {
    await p.page.goto(`${server.url}games/99999`);
    await p.page.getByText("there is no finished game at table 99999", { exact: false }).waitFor();
    // A game still being played is watched from the lobby instead.
    const open = await p.page.evaluate(
      () =>
        new Promise((done, fail) => {
          const ws = new WebSocket(`ws://${location.host}/ws`);
          ws.onopen = () => ws.send(JSON.stringify({ type: "hello", version: 1, name: "cy", client: "site test" }));
          ws.onmessage = (e) => {
            const m = JSON.parse(e.data);
            if (m.type === "welcome") ws.send(JSON.stringify({ type: "create", game: "cubes", seats: [{ kind: "human" }, { kind: "computer", level: "steady" }], sit: 0 }));
            else if (m.type === "created") done(m.table.id);
            else if (m.type === "error") fail(new Error(m.message));
          };
        }),
    );
    await p.page.goto(`${server.url}games/${open}`);
    await p.page.getByText("is not over yet", { exact: false }).waitFor();
    assert.equal(await p.page.getByRole("link", { name: `Watch table ${open}` }).getAttribute("href"), `/#/table/${open}?watch`);
    await p.page.goto(`${server.url}players/nobody`);
    await p.page.getByText("Nobody named", { exact: false }).waitFor();
    await screenshot(p.page, "site-player-unknown");
  } finally {
    await p.context.close();
  }
});

test("a cubes game's replay, from its start to its winner", async () => {
  const p = await newPlayer(browser);
  const { page } = p;
  try {
    await page.goto(`${server.url}ladder`);
    const id = await playGame(page, "bea", "cubes");
    await recorded(id);
    await page.goto(`${server.url}games/${id}`);
    await page.locator("#step-line[data-ready]").waitFor();
    await page.locator(".table-view[data-step='0']").waitFor();
    assert.equal(await page.locator("#hand").count(), 0, "cubes has no hands to jump to");
    await page.locator("#step-forward").click();
    await page.keyboard.press("ArrowRight");
    await page.locator(".table-view[data-step='2']").waitFor();
    await screenshot(page, "site-game-cubes");
    await page.keyboard.press("End");
    await page.locator("#step-line", { hasText: "The game is over." }).waitFor();
    await screenshot(page, "site-game-cubes-end");
    // The board's links to the lobby's screens lead to the lobby's page.
    for (const href of await page.locator(".table-view a").evaluateAll((as) => as.map((a) => a.getAttribute("href")))) {
      assert.ok(!href.startsWith("#"), href);
    }
    await page.getByRole("link", { name: "bea", exact: true }).click();
    await page.waitForURL(/\/players\/bea$/);
    await page.locator(".rating-card h2", { hasText: "Cubes, standard" }).waitFor();
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});
