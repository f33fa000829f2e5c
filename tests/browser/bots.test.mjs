// Bots in the page: a real network bot (`mille bot --connect --level
// random`) invited from the new-table form's "Play against…", a whole
// rated game played against it, its badge in the lobby and its seat on
// the board; the same bot declining a cubes table; and, against a scripted
// server, what the page sends and shows for an invitation and a refusal.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, launch, newPlayer, signIn, screenshot, noErrors, seriousViolations, startBot } from "./harness.mjs";

let server;
let browser;
let robo;

before(async () => {
  // A short pause between hands: the bot says ready by itself.
  server = await startServer({ handPause: 120, args: ["--coup-fourre-window", "0"] });
  browser = await launch();
  robo = await startBot(server, browser, "Robo", { owner: "alice", description: "plays a random legal move" });
});

after(async () => {
  await robo?.stop();
  await browser?.close();
  await server?.stop();
});

const TABLE = ".mille";

/** What the page shows of the game: its phase, legal actions, the
 *  observation counter and whether the score dialog is open. */
async function state(page) {
  return page.evaluate((sel) => {
    const d = document.querySelector(sel).dataset;
    return { phase: d.phase, legal: d.legal ? d.legal.split("|") : [], obs: d.obs, scores: !!document.querySelector("dialog.mille-scores[open]"), extension: !!document.querySelector("dialog.mille-ext[open]") };
  }, TABLE);
}

/** A move among the legal ones: any play, else a discard (a draw first). */
function choose(legal) {
  return legal.find((a) => a === "draw") || legal.find((a) => a === "end_trip") || legal.find((a) => a.startsWith("coup_fourre")) || legal.find((a) => a.startsWith("play ")) || legal[0];
}

/** Plays the viewer's seat with the keyboard (P draws, U and D with the
 *  card's position play and discard) until the hand is over. */
async function playHand(page) {
  for (let step = 0; step < 800; step++) {
    const s = await state(page);
    if (s.scores || s.phase === "hand_over" || s.phase === "game_over") return;
    if (s.extension) {
      await page.locator("dialog.mille-ext").getByRole("button", { name: "No" }).click();
    } else if (s.legal.length) {
      const action = choose(s.legal);
      const [verb, card] = action.split(" ");
      if (action === "draw") await page.keyboard.press("p");
      else if (verb === "coup_fourre") await page.locator(`${TABLE} .hand-card[data-card="${card}"]`).first().click();
      else {
        const pos = await page.locator(`${TABLE} .hand-card[data-card="${card}"]`).first().getAttribute("data-pos");
        await page.keyboard.press(verb === "discard" ? "d" : "u");
        await page.keyboard.press(pos);
        await page.keyboard.press("Enter");
      }
    }
    await page.waitForFunction(
      ([sel, prev]) => document.querySelector(sel)?.dataset.obs !== prev || document.querySelector("dialog.mille-scores[open], dialog.mille-ext[open], .bubble"),
      [TABLE, s.obs],
      { timeout: 20000 },
    );
    const bubble = page.locator(".bubble");
    if (await bubble.count()) throw new Error(`a move was refused: ${await bubble.innerText()}`);
  }
  throw new Error("the hand did not end in 800 steps");
}

test("a person invites Robo from Play against…, plays a whole game against it; the lobby and the board mark the bot; Robo declines a cubes table", async () => {
  const ann = await newPlayer(browser);
  const eve = await newPlayer(browser);
  const { page } = ann;
  try {
    await signIn(ann, server.url, "ann");
    await page.getByRole("button", { name: "New Mille Bornes table" }).click();
    // Play against…: the bots connected now, with who runs them.
    const robo = page.getByRole("radio", { name: /Robo/ });
    await robo.waitFor();
    const label = await page.locator("label", { has: page.locator("strong", { hasText: "Robo" }) }).innerText();
    assert.match(label, /by alice/);
    assert.match(label, /plays a random legal move/);
    assert.equal(await page.getByRole("radio", { name: /people and computers/ }).isChecked(), true, "the seats below, unless a bot is chosen");
    // By keyboard: the radio group, then the arrow to the bot.
    await page.getByRole("radio", { name: /people and computers/ }).focus();
    await page.keyboard.press("ArrowDown");
    assert.equal(await robo.isChecked(), true);
    await page.locator("#seat-1[data-bot='Robo']").waitFor();
    await screenshot(page, "bots-play-against");
    await page.locator("#create").click();
    await page.locator(`${TABLE}[data-obs]`).waitFor();
    const table = Number(/#\/table\/(\d+)/.exec(page.url())[1]);
    // The board names Robo's seat a bot's once it came (or while it comes).
    await page.locator(`${TABLE} .player[data-seat="1"]`, { hasText: /Robo \(bot/ }).waitFor();
    await page.locator(`${TABLE} .player[data-seat="1"]`, { hasText: "Robo (bot)" }).waitFor({ timeout: 20000 });

    // Somebody else's lobby: Robo's seat with its badge, who runs it in its tip.
    await signIn(eve, server.url, "eve");
    const seat = eve.page.locator(`#watch-${table}`).locator("xpath=ancestor::tr").locator("ol.seats li", { hasText: "Robo" });
    await seat.waitFor();
    const badge = seat.locator(".badge.bot");
    assert.equal(await badge.getAttribute("title"), "a bot run by alice");
    assert.match(await seat.innerText(), /bot/);
    await screenshot(eve.page, "bots-lobby");

    // The whole game against it, by keyboard: each hand to its score
    // dialog, Next hand (Robo says ready by itself), to the game's end.
    let hands = 0;
    for (;;) {
      await playHand(page);
      hands += 1;
      const scores = page.locator("dialog.mille-scores");
      await scores.waitFor();
      assert.match(await scores.innerText(), /Robo/);
      if ((await state(page)).phase === "game_over") break;
      assert.ok(hands < 30, "the game ends");
      await scores.getByRole("button", { name: "Next hand" }).click();
      await page.waitForFunction((sel) => !["hand_over", "game_over"].includes(document.querySelector(sel).dataset.phase), TABLE, { timeout: 20000 });
    }
    await page.getByRole("dialog", { name: "Game over" }).waitFor();
    await page.keyboard.press("Escape");
    // Rated: both ratings moved (the ladder has both, after one game).
    const ladder = await (await fetch(`${server.url}api/ladder?category=mille-bsd`)).json();
    assert.deepEqual(ladder.filter((r) => r.games === 1).map((r) => [r.name, !!r.bot]).sort(), [["Robo", true], ["ann", false]]);

    // A cubes table: Robo plays mille only, and says so.
    // The game is over: the table is left without a question.
    await page.locator("#leave").click();
    await page.getByRole("button", { name: "New cubes table" }).click();
    await page.getByRole("radio", { name: /Robo/ }).check();
    await page.locator("#create").click();
    await page.locator("#presence .declined", { hasText: "Robo declined: I play mille only" }).waitFor({ timeout: 20000 });
    // The seat is free: the cubes board says so.
    await page.locator(".cubes tr", { hasText: "free seat" }).waitFor();
    await screenshot(page, "bots-declined");
    noErrors(ann, assert);
    noErrors(eve, assert);
  } finally {
    await ann.context.close();
    await eve.context.close();
  }
});

// ---- against a scripted server --------------------------------------------

const ZERO = { miles: 0, safeties: 0, all_safeties: 0, coups: 0, trip: 0, delayed_action: 0, safe_trip: 0, extension: 0, shut_out: 0 };
const side = (team) => ({ team, battle: [], speed: [], distance: [], safeties: [], coups: [], score: { hand: 0, game: 0 } });

/** A bsd table at its start, seen by seat 0 (nothing to play yet: the
 *  invited bot has not come). */
function waitingObservation() {
  return {
    rules: "bsd", seat: 0, hand: ["25", "go", "stop", "gasoline", "75", "50"], deck: 94, discards: [], target: 700, extended: false,
    seats: [{ seat: 0, team: 0, hand_size: 6 }, { seat: 1, team: 1, hand_size: 6 }],
    teams: [side(0), side(1)], viewer: { seat: 0 }, config: { rules: "bsd", players: 2, stacking: false },
    status: { phase: "turn", seat: 0, drawn: false }, legal: [], events: [], hand_number: 0, games_won: [0, 0], hand_scores: [ZERO, ZERO], last_hand: null,
    seat_info: [{ name: "ann", kind: "human" }, { name: "Robo", kind: "human" }],
  };
}

const summary = (id, seats, more = {}) => ({ id, game: "mille", ruleset: "bsd", setup: { rules: "bsd", players: 2 }, seats, status: "waiting", private: false, spectators: 0, seq: 1, rated: true, ...more });
const person = (player, more = {}) => ({ kind: "human", player, connected: true, away: false, ...more });

test("Play against… sends the bot's seat; an invited seat and a bot's are badged; a refusal is said and frees the seat (scripted server)", async () => {
  const p = await newPlayer(browser);
  const { page } = p;
  const sent = [];
  let ws;
  const invited = person("Robo", { bot: true, invited: true, connected: false });
  const tables = [summary(7, [person("bob"), person("Tortoise", { bot: true })], { status: "playing" })];
  const connected = [{ name: "Robo", owner: "alice", description: "plays a random legal move" }, { name: "Tortoise", owner: "bob", description: "" }];
  await p.context.routeWebSocket(/\/ws$/, (route) => {
    ws = route;
    route.onMessage((text) => {
      const m = JSON.parse(text);
      sent.push(m);
      const reply = (r) => route.send(JSON.stringify(r));
      if (m.type === "hello") {
        reply({ type: "welcome", version: 1, server: "script", name: m.name, token: "0123456789abcdef",
          limits: { max_message_bytes: 65536, messages_per_second: 20, burst: 40, idle_seconds: 120, away_seconds: 60, decision_seconds: 10 },
          seats: [], games: [{ game: "mille", levels: ["classic"] }, { game: "cubes", levels: ["steady"] }] });
      } else if (m.type === "list") reply({ type: "tables", tables });
      else if (m.type === "bots") reply({ type: "bots", bots: connected });
      else if (m.type === "create") {
        const t = summary(8, [person("ann"), invited]);
        tables.push(t);
        reply({ type: "created", table: t });
      } else if (m.type === "join") reply({ type: "joined", table: 8, seat: 0, seq: 1, observation: waitingObservation() });
      else if (m.type === "ping") reply({ type: "pong" });
    });
  });
  try {
    await signIn(p, server.url, "ann");
    // The lobby: Tortoise's seat badged, who runs it in the tip once known.
    const tortoise = page.locator("ol.seats li", { hasText: "Tortoise" });
    await tortoise.locator(".badge.bot[title='a bot run by bob']").waitFor();
    assert.match(await tortoise.innerText(), /Tortoise\s*bot/);

    await page.getByRole("button", { name: "New Mille Bornes table" }).click();
    await page.getByRole("radio", { name: /Tortoise/ }).waitFor();
    assert.deepEqual(await page.locator("#bot-choice input[type=radio]").evaluateAll((rs) => rs.map((r) => r.value)), ["", "Robo", "Tortoise"]);
    assert.deepEqual(await seriousViolations(page), [], "the form with its bots");
    // A bot connects meanwhile: Look again lists it, the focus stays on the button.
    connected.push({ name: "Zed", owner: "cy", description: "new here" });
    await page.locator("#bots-again").focus();
    await page.keyboard.press("Enter");
    await page.getByRole("radio", { name: /Zed/ }).waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), "bots-again");
    await page.getByRole("radio", { name: /Robo/ }).check();
    // Seat 2 is Robo's; back to the seats, it is a select again.
    await page.locator("#seat-1[data-bot='Robo']").waitFor();
    await page.getByRole("radio", { name: /people and computers/ }).check();
    await page.locator("select#seat-1").waitFor();
    await page.getByRole("radio", { name: /Robo/ }).check();
    await page.locator("#create").click();
    await page.locator(`${TABLE}[data-obs]`).waitFor();
    const create = sent.find((m) => m.type === "create");
    assert.deepEqual(create.seats, [{ kind: "human" }, { kind: "bot", name: "Robo" }]);
    assert.equal(create.sit, 0);
    assert.equal(create.setup.players, 2, "two seats unless asked for more");

    // The table waits for Robo, and says so; the board marks its seat.
    await page.locator("#presence", { hasText: "Robo (a bot) is invited to seat 2" }).waitFor();
    await page.locator(`${TABLE} .player[data-seat="1"]`, { hasText: "Robo (bot, invited)" }).waitFor();
    await screenshot(page, "bots-invited");

    // Robo declines: said above the table and to a screen reader; the seat is free.
    ws.send(JSON.stringify({ type: "declined", table: 8, seat: 1, bot: "Robo", reason: "busy in the arena" }));
    await page.locator("#presence .declined", { hasText: "Robo declined: busy in the arena" }).waitFor();
    await page.locator("#announce p", { hasText: "Robo declined: busy in the arena Seat 2 is free." }).waitFor({ state: "attached" });
    assert.equal(await page.locator("#presence").getByText("is invited").count(), 0, "nobody is invited any more");
    assert.deepEqual(await seriousViolations(page), [], "the table with the refusal");
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});
