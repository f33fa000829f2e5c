// When someone leaves, in Chromium: over the real server (a short --away),
// the others see who left, the countdown and then the computer that plays
// for the absent player; a spectator sees a table nobody is at paused; at
// a table shared by two people the end-of-hand question says what each
// key does and leaving asks first, saying what abandoning means. With a
// scripted server (its WebSocket answered by the test), what the protocol
// carries whatever the server's state: the countdown from `stand_in_in`
// (counted down by the page, set again by every update, said once to a
// screen reader), the lobby's ratings and casual tables, the new-table
// form's Rated/Casual, and the `ended` notice after sign-in.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, launch, newPlayer, signIn, screenshot, noErrors } from "./harness.mjs";

let server;
let browser;

before(async () => {
  // A computer plays for an absent person after 3 s; each next hand waits
  // for its players (a short pause would deal it while the test reads the
  // question); no pause after hazards, so that a hand is quick.
  server = await startServer({ away: 3, botDelay: 0, handPause: 120, args: ["--coup-fourre-window", "100"] });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const TABLE = ".mille";

/** Opens a public bsd table for two people as `name`; answers its id. */
async function openSharedTable(player, name, { casual = false } = {}) {
  const { page } = player;
  await signIn(player, server.url, name);
  await page.getByRole("button", { name: "New Mille Bornes table" }).click();
  await page.locator("#rules").selectOption("bsd");
  await page.locator("#seat-1").selectOption("human");
  if (casual) await page.locator("#casual").check();
  await page.locator("#create").click();
  await page.waitForURL(/#\/table\/\d+/);
  await page.locator(`${TABLE}[data-obs]`).waitFor();
  return Number(/#\/table\/(\d+)/.exec(page.url())[1]);
}

/** What the page shows of the game (the table's data attributes). */
async function state(page) {
  return page.evaluate((sel) => {
    const d = document.querySelector(sel).dataset;
    return { phase: d.phase, legal: d.legal ? d.legal.split("|") : [], obs: d.obs, scores: !!document.querySelector("dialog.mille-scores[open]"), extension: !!document.querySelector("dialog.mille-ext[open]") };
  }, TABLE);
}

/** Plays the viewer's side with the keys (P, U or D, the card's number,
 *  Enter) until the hand is over and its score dialog is open. Every
 *  move is one of the legal ones the page shows. */
async function playHand(page) {
  for (let step = 0; step < 800; step++) {
    const s = await state(page);
    if (s.scores) return;
    if (s.phase === "hand_over" || s.phase === "game_over") {
      await page.locator("dialog.mille-scores").waitFor();
      return;
    }
    if (s.extension) {
      await page.locator("dialog.mille-ext").getByRole("button", { name: "No" }).click();
    } else if (s.legal.length) {
      const pick = (f) => s.legal.find(f);
      const action = pick((a) => a === "draw") || pick((a) => a.startsWith("coup_fourre")) || pick((a) => a.startsWith("play ")) || s.legal[0];
      if (action === "draw") await page.keyboard.press("p");
      else if (action === "decline") await page.keyboard.press("p");
      else {
        const [verb, card] = action.split(" ");
        const pos = await page.locator(`${TABLE} .hand-card[data-card="${card}"]`).first().getAttribute("data-pos");
        await page.keyboard.press(verb === "discard" ? "d" : "u");
        await page.keyboard.press(String(pos));
        await page.keyboard.press("Enter");
      }
    }
    await page.waitForFunction(
      ([sel, prev]) => document.querySelector(sel)?.dataset.obs !== prev || document.querySelector("dialog.mille-scores[open], dialog.mille-ext[open]"),
      [TABLE, s.obs],
      { timeout: 20000 },
    );
    const bubble = page.locator(".bubble");
    if (await bubble.count()) throw new Error(`a move was refused: ${await bubble.innerText()}`);
  }
  throw new Error("the hand did not end in 800 steps");
}

/** The live region's sentences that match `re`. */
async function saidMatching(page, re) {
  return (await page.locator("#announce p").allInnerTexts()).filter((t) => re.test(t));
}

test("one of two players closes the page: the other sees who left, the countdown and the stand-in; the end-of-hand question and leaving ask first; a spectator sees a table nobody is at paused", async () => {
  const ann = await newPlayer(browser);
  let bob = await newPlayer(browser);
  const eve = await newPlayer(browser);
  try {
    const table = await openSharedTable(ann, "ann-leave");
    await signIn(bob, server.url, "bob-leave");
    await bob.page.locator(`#join-${table}`).click();
    await bob.page.locator(`${TABLE}[data-obs]`).waitFor();
    await signIn(eve, server.url, "eve-leave");
    await eve.page.locator(`#watch-${table}`).click();
    await eve.page.locator(`${TABLE}[data-obs]`).waitFor();
    const { page } = ann;
    assert.ok(await page.locator("#presence").isHidden(), "nobody left yet: no line");

    // Leaving a game in progress at a shared table asks first, and says
    // what leaving and not coming back mean; Escape stays.
    await page.keyboard.press("q");
    const ask = page.getByRole("dialog", { name: "Leave the table?" });
    await ask.waitFor();
    const words = await ask.innerText();
    assert.match(words, /a computer plays for you/, words);
    assert.match(words, /not back at the table when the game ends, you have abandoned it/, words);
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Stay", "Stay has the focus");
    await screenshot(page, "leave-confirm");
    await page.keyboard.press("Escape");
    await ask.waitFor({ state: "detached" });
    assert.match(page.url(), /#\/table\/\d+$/, "still at the table");

    // Bob closes his page: ann and the spectator see who left and when a
    // computer plays for him (the server's away time is 3 s).
    await bob.context.close();
    bob = null;
    const presence = page.locator("#presence");
    await presence.getByText(/^bob-leave left: a computer plays for bob-leave (in \d+ s|in a moment)\.$/).waitFor({ timeout: 10000 });
    await eve.page.locator("#presence").getByText(/^bob-leave left/).waitFor();
    await screenshot(page, "leave-countdown");
    await presence.getByText(/^bob-leave left: a computer plays for bob-leave\.$/).waitFor({ timeout: 15000 });
    await screenshot(eve.page, "leave-stand-in-spectator");
    // Said once each to a screen reader, not every second.
    assert.equal((await saidMatching(page, /bob-leave left: a computer plays for bob-leave in/)).length, 1, "the countdown is said once");
    assert.equal((await saidMatching(page, /A computer plays for bob-leave now/)).length, 1, "the stand-in is said once");

    // Ann plays the hand against the stand-in: at its end the question
    // says what each key does, in the score dialog and on the prompt line.
    await playHand(page);
    const dlg = page.locator("dialog.mille-scores");
    await dlg.getByText("Ready for the next hand? Y (or Next hand); Q (or Leave the table) leaves the table.").waitFor();
    assert.deepEqual(await dlg.getByRole("button").allInnerTexts(), ["Next hand", "Leave the table", "Close"]);
    await screenshot(page, "leave-hand-over-dialog");
    await page.keyboard.press("Escape");
    await dlg.waitFor({ state: "detached" });
    await page.locator("#mille-prompt").getByText("Ready for the next hand? Y (or Next hand); Q (or Leave the table) leaves the table.").waitFor();
    await screenshot(page, "leave-hand-over");
    // The prompt's Leave the table asks first too.
    await page.locator(`${TABLE} .prompt`).getByRole("button", { name: "Leave the table" }).click();
    await ask.waitFor();
    await ask.getByRole("button", { name: "Stay" }).click();
    await ask.waitFor({ state: "detached" });
    // At a phone's width the line and the question fit.
    await page.setViewportSize({ width: 360, height: 740 });
    await screenshot(page, "leave-hand-over-phone");
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360), "nothing overflows at 360 px");
    // Y says ready: the page says so, or the next hand (the stand-in is
    // ready at once) is dealt.
    await page.keyboard.press("y");
    await page.waitForFunction(
      (sel) => document.querySelector(sel).dataset.phase !== "hand_over" || /You are ready/.test(document.getElementById("mille-prompt")?.textContent || ""),
      TABLE,
    );

    // Ann closes her page too: nobody is at the table, and the spectator
    // sees it paused.
    await ann.context.close();
    await eve.page.locator("#presence").getByText("Paused: nobody is at the table.").waitFor({ timeout: 15000 });
    await screenshot(eve.page, "leave-paused-spectator");
    // The lobby says so too.
    await eve.page.locator("#leave").click();
    const row = eve.page.locator("table.tables tr", { has: eve.page.locator(`#watch-${table}`) });
    await row.getByText("paused: nobody is at the table").waitFor();
    noErrors(eve, assert);
  } finally {
    await Promise.all([ann, bob, eve].filter(Boolean).map((p) => p.context.close().catch(() => {})));
  }
});

test("cubes: at a table of two people, Q asks first and says what abandoning means; the other sees who left and the stand-in; F1 explains", async () => {
  const ann = await newPlayer(browser, { viewport: { width: 360, height: 740 } });
  let bob = await newPlayer(browser);
  try {
    const { page } = ann;
    await signIn(ann, server.url, "ann-cubes");
    await page.locator("#new-cubes").click();
    await page.locator("#kind").selectOption("blitz");
    await page.locator("#seat-1").selectOption("human");
    await page.locator("#create").click();
    await page.waitForURL(/#\/table\/\d+/);
    await page.locator(".cubes").waitFor();
    const table = Number(/#\/table\/(\d+)/.exec(page.url())[1]);
    await signIn(bob, server.url, "bob-cubes");
    await bob.page.locator(`#join-${table}`).click();
    await bob.page.locator(".cubes").waitFor();
    await page.locator(".cu-log").getByText(/the game begins/).waitFor();

    await page.keyboard.press("q");
    const ask = page.getByRole("dialog", { name: "Leave the table?" });
    await ask.waitFor();
    assert.match(await ask.innerText(), /you have abandoned it/);
    await screenshot(page, "leave-cubes-confirm-phone");
    await page.keyboard.press("Escape");
    await ask.waitFor({ state: "detached" });

    await bob.context.close();
    bob = null;
    await page.locator("#presence").getByText(/^bob-cubes left/).waitFor({ timeout: 10000 });
    await page.locator("#presence").getByText(/^bob-cubes left: a computer plays for bob-cubes\.$/).waitFor({ timeout: 15000 });
    await screenshot(page, "leave-cubes-stand-in-phone");
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360), "nothing overflows at 360 px");
    await page.keyboard.press("F1");
    await page.getByRole("dialog", { name: "cubes: help" }).getByRole("heading", { name: "When someone leaves" }).waitFor();
    await page.keyboard.press("Escape");
    noErrors(ann, assert);
  } finally {
    await Promise.all([ann, bob].filter(Boolean).map((p) => p.context.close().catch(() => {})));
  }
});

test("the lobby shows a rated table's ratings and marks a casual one; the form is rated by default; the Ladder link", async () => {
  const ann = await newPlayer(browser);
  const bob = await newPlayer(browser);
  try {
    const rated = await openSharedTable(ann, "ann-rated");
    await signIn(bob, server.url, "bob-rated");
    // The form: Rated is chosen until Casual is.
    await bob.page.getByRole("button", { name: "New Mille Bornes table" }).click();
    assert.equal(await bob.page.locator("#rated").isChecked(), true, "rated by default");
    await screenshot(bob.page, "leave-form-rated");
    await bob.page.getByRole("button", { name: "Cancel" }).click();
    const row = bob.page.locator("table.tables tr", { has: bob.page.locator(`#join-${rated}`) });
    await row.waitFor();
    assert.equal(await row.locator(".badge.casual").count(), 0, "a rated table is not marked casual");
    // A fresh server has no ratings: the seated player shows the starting
    // rating, provisional.
    assert.deepEqual(await row.locator(".rating [aria-hidden]").allInnerTexts(), ["1500?"]);
    assert.equal(await bob.page.locator("#ladder-link").getAttribute("href"), "/ladder");
    await screenshot(bob.page, "leave-lobby-ratings");

    // A casual table is marked so.
    await ann.page.locator("#leave").click();
    await ann.page.getByRole("button", { name: "Leave the table" }).click();
    const casual = await openSharedTable(ann, "ann-rated", { casual: true });
    const casualRow = bob.page.locator("table.tables tr", { has: bob.page.locator(`#join-${casual}`) });
    await casualRow.locator(".badge.casual").waitFor();
    assert.equal(await casualRow.locator(".rating").count(), 0, "a casual table shows no ratings");
    await bob.page.setViewportSize({ width: 360, height: 740 });
    await screenshot(bob.page, "leave-lobby-phone");
    noErrors(ann, assert);
    noErrors(bob, assert);
  } finally {
    await Promise.all([ann, bob].map((p) => p.context.close()));
  }
});

test("a game left paused is closed as abandoned, and its player is told how it ended when back (a server of its own, --abandon-after 2)", async () => {
  const quick = await startServer({ away: 3, botDelay: 0, args: ["--abandon-after", "2"] });
  const ann = await newPlayer(browser);
  try {
    const { page } = ann;
    await signIn(ann, quick.url, "ann-back");
    await page.getByRole("button", { name: "New Mille Bornes table" }).click();
    await page.locator("#seat-1").selectOption("computer:classic");
    await page.locator("#create").click();
    await page.locator(`${TABLE}[data-obs]`).waitFor();
    const table = Number(/#\/table\/(\d+)/.exec(page.url())[1]);
    // Gone: the page closed (the browser keeps the name's key). She comes
    // back now and then (the lobby alone does not take the game up again)
    // until the table, paused for 2 s, is closed and she is told.
    const notice = page.getByRole("region", { name: "A table you had left has ended" });
    for (let tries = 0; ; tries++) {
      await page.goto("about:blank");
      await new Promise((r) => setTimeout(r, 2500));
      await signIn(ann, quick.url, "ann-back");
      await page.locator("#new-mille").waitFor();
      // `ended` follows `welcome`: a moment for it.
      if (await notice.waitFor({ timeout: 2000 }).then(() => true, () => false)) break;
      assert.ok(tries < 10, "the table was never closed as abandoned");
    }
    assert.match(await notice.innerText(), new RegExp(`Table ${table} \\(Mille Bornes, bsd, 2 players\\): `));
    await screenshot(page, "leave-ended-notice");
    await notice.getByRole("button", { name: "Dismiss" }).click();
    await notice.waitFor({ state: "detached" });
    noErrors(ann, assert);
  } finally {
    await ann.context.close();
    await quick.stop();
  }
});

// ---- a scripted server: the protocol's messages, whatever the server does

const ZERO = { miles: 0, safeties: 0, all_safeties: 0, coups: 0, trip: 0, delayed_action: 0, safe_trip: 0, extension: 0, shut_out: 0 };
const side = (team) => ({ team, battle: ["go"], speed: [], distance: ["100"], safeties: [], coups: [], score: { hand: 0, game: 0 } });

/** A two-seat bsd observation: ann (seat 0) against bob (seat 1), bob to play. */
function observation({ spectator = false } = {}) {
  return {
    rules: "bsd", seat: 0, hand: spectator ? [] : ["25", "go", "extra_tank", "gasoline", "75", "50"], deck: 40, discards: ["25"], target: 700, extended: false,
    seats: [{ seat: 0, team: 0, hand_size: 6 }, { seat: 1, team: 1, hand_size: 6 }],
    teams: [side(0), side(1)],
    viewer: spectator ? "spectator" : { seat: 0 }, config: { rules: "bsd", players: 2, stacking: false },
    status: { phase: "turn", seat: 1, drawn: false }, legal: [], events: [], hand_number: 0, games_won: [0, 0], hand_scores: [ZERO, ZERO], last_hand: null,
    seat_info: [{ name: "ann", kind: "human" }, { name: "bob", kind: "human" }],
  };
}

const person = (player, more = {}) => ({ kind: "human", player, connected: true, away: false, ...more });

/** Answers the page's WebSocket: `welcome` (then `ended` with `endings`),
 *  `tables` with `tables`, and table 1 joined (ann, seat 0) or watched.
 *  Answers {sent, update(seats), open(name, hash)}. */
async function scripted(p, { tables = [], endings = [], watch = false } = {}) {
  const sent = [];
  let ws;
  let seq = 5;
  await p.context.routeWebSocket(/\/ws$/, (route) => {
    ws = route;
    route.onMessage((text) => {
      const m = JSON.parse(text);
      sent.push(m);
      const reply = (r) => route.send(JSON.stringify(r));
      if (m.type === "hello") {
        reply({ type: "welcome", version: 1, server: "script", name: m.name, token: "0123456789abcdef",
          limits: { max_message_bytes: 65536, messages_per_second: 20, burst: 40, idle_seconds: 120, away_seconds: 45 },
          seats: watch ? [] : [{ table: 1, game: "mille", seat: 0 }], games: [{ game: "mille", levels: ["classic"] }, { game: "cubes", levels: ["steady"] }] });
        if (endings.length) reply({ type: "ended", tables: endings });
      } else if (m.type === "join") reply({ type: "joined", table: 1, seat: 0, seq, observation: observation() });
      else if (m.type === "watch") reply({ type: "watching", table: 1, seq, observation: observation({ spectator: true }) });
      else if (m.type === "list") reply({ type: "tables", tables });
      else if (m.type === "ping") reply({ type: "pong" });
      else if (m.type === "create") reply({ type: "error", code: "unavailable", message: "scripted: no new tables" });
    });
  });
  return {
    sent,
    update: (seats) => ws.send(JSON.stringify({ type: "update", table: 1, seq: ++seq, observation: observation({ spectator: watch }), seats })),
    async open(name, hash = "#/") {
      await p.page.goto(`${server.url}${hash}`);
      await p.page.locator("#name").fill(name);
      await p.page.getByRole("button", { name: "Play" }).click();
      await p.page.locator("#conn.open").waitFor();
    },
  };
}

const summary = (seats, more = {}) => ({ id: 1, game: "mille", ruleset: "bsd, 2 players", setup: { rules: "bsd", players: 2, stacking: false }, seats, status: "playing", private: false, spectators: 0, seq: 5, rated: true, ...more });

test("the countdown from stand_in_in: counted down by the page, set again by every update, said once; then the stand-in, and the return (scripted server)", async () => {
  const ann = await newPlayer(browser);
  const tables = [summary([person("ann"), person("bob")])];
  const srv = await scripted(ann, { tables });
  try {
    const { page } = ann;
    await srv.open("ann", "#/table/1");
    await page.locator(`${TABLE}[data-obs]`).waitFor();
    const presence = page.locator("#presence");
    assert.ok(await presence.isHidden());

    srv.update([person("ann"), person("bob", { connected: false, stand_in_in: 45 })]);
    await presence.getByText(/^bob left: a computer plays for bob in 4[45] s\.$/).waitFor();
    // Counted down here, second by second.
    await presence.getByText(/^bob left: a computer plays for bob in 4[23] s\.$/).waitFor({ timeout: 5000 });
    // Every update sets it again.
    srv.update([person("ann"), person("bob", { connected: false, stand_in_in: 30 })]);
    await presence.getByText(/^bob left: a computer plays for bob in (30|29) s\.$/).waitFor();
    await screenshot(page, "leave-scripted-countdown");
    assert.deepEqual(await saidMatching(page, /bob left/), ["bob left: a computer plays for bob in 45 seconds."], "said once, not every second nor at every update");

    srv.update([person("ann"), person("bob", { connected: false, away: true, level: "classic" })]);
    await presence.getByText(/^bob left: a computer plays for bob\.$/).waitFor();
    assert.deepEqual(await saidMatching(page, /A computer plays for bob/), ["A computer plays for bob now."]);

    srv.update([person("ann"), person("bob")]);
    await presence.waitFor({ state: "hidden" });
    assert.deepEqual(await saidMatching(page, /bob is back/), ["bob is back."]);

    // F1: the help has a section on leaving.
    await page.keyboard.press("F1");
    const help = page.getByRole("dialog", { name: "Mille Bornes: the table" });
    await help.getByRole("heading", { name: "When someone leaves" }).waitFor();
    const text = await help.innerText();
    assert.match(text, /paused/);
    assert.match(text, /after 45 seconds a computer plays/);
    assert.match(text, /abandoned/);
    assert.match(text, /loss in the ratings and enters no high-score table/);
    assert.match(text, /casual/);
    await screenshot(page, "leave-help", { fullPage: false });
    await page.keyboard.press("Escape");
    noErrors(ann, assert);
  } finally {
    await ann.context.close();
  }
});

test("a spectator of a table nobody is at sees it paused (scripted server)", async () => {
  const eve = await newPlayer(browser, { viewport: { width: 360, height: 740 } });
  const gone = [person("ann", { connected: false }), person("bob", { connected: false, away: true, level: "classic" })];
  const srv = await scripted(eve, { tables: [summary(gone)], watch: true });
  try {
    await srv.open("eve", "#/table/1?watch");
    await eve.page.locator(`${TABLE}[data-obs]`).waitFor();
    await eve.page.locator("#presence").getByText("Paused: nobody is at the table.").waitFor();
    await screenshot(eve.page, "leave-scripted-paused-phone");
    noErrors(eve, assert);
  } finally {
    await eve.context.close();
  }
});

test("after sign-in, how the tables one had left ended is shown in the lobby until dismissed; ratings and casual tables in the lobby; the form sends rated (scripted server)", async () => {
  const ann = await newPlayer(browser);
  const endings = [
    { table: 7, game: "mille", ruleset: "bsd, 2 players", abandoned: true, message: "bob won 5000 to 3150. You had left, so the game counts as abandoned: your rating 1500 → 1431." },
    { table: 9, game: "cubes", ruleset: "standard", abandoned: false, message: "You won 10,050 to 8,200." },
  ];
  const tables = [
    summary([person("bob", { rating: { rating: 1540, deviation: 160, provisional: true } }), { kind: "computer", level: "classic", connected: false, away: false, rating: { rating: 1712, deviation: 48, provisional: false } }]),
    summary([person("cy"), { kind: "human", connected: false, away: false }], { id: 2, rated: false, status: "waiting" }),
  ];
  const srv = await scripted(ann, { tables, endings, watch: true });
  try {
    const { page } = ann;
    await srv.open("ann");
    const notice = page.getByRole("region", { name: "Tables you had left have ended" });
    await notice.waitFor();
    const text = await notice.innerText();
    assert.match(text, /Table 7 \(Mille Bornes, bsd, 2 players\): bob won 5000 to 3150\. You had left, so the game counts as abandoned/);
    assert.match(text, /Table 9 \(cubes, standard\): You won/);
    assert.equal((await saidMatching(page, /While you were away/)).length, 1, "said once");

    // Ratings beside the seated players of a rated table; a casual table marked.
    const row1 = page.locator("table.tables tr", { has: page.locator("#watch-1") });
    await row1.waitFor();
    assert.deepEqual(await row1.locator(".rating [aria-hidden]").allInnerTexts(), ["1540?", "1712"]);
    assert.deepEqual(await row1.locator(".rating .sr-only").allInnerTexts(), ["rating 1540, provisional", "rating 1712"]);
    assert.equal(await row1.locator(".badge.casual").count(), 0);
    const row2 = page.locator("table.tables tr", { has: page.locator("#watch-2") });
    assert.equal(await row2.locator(".badge.casual").innerText(), "casual");
    assert.equal(await row2.locator(".rating").count(), 0);
    await screenshot(page, "leave-scripted-lobby");
    await page.setViewportSize({ width: 360, height: 740 });
    await screenshot(page, "leave-scripted-lobby-phone");
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360), "nothing overflows at 360 px");
    await page.setViewportSize({ width: 1280, height: 860 });

    // Dismissed, it goes, and the focus goes to the lobby's heading.
    await notice.getByRole("button", { name: "Dismiss" }).click();
    await notice.waitFor({ state: "detached" });
    assert.equal(await page.evaluate(() => document.activeElement?.tagName), "H1");

    // F1 in the lobby: the page's help has the section too.
    await page.keyboard.press("F1");
    const help = page.getByRole("dialog", { name: "Help" });
    await help.getByRole("heading", { name: "When someone leaves" }).waitFor();
    assert.match(await help.innerText(), /after 45 seconds a computer plays for the absent player/);
    await screenshot(page, "leave-lobby-help", { fullPage: false });
    await page.keyboard.press("Escape");
    await help.waitFor({ state: "detached" });

    // The form sends rated: true by default, false for Casual.
    for (const [choice, want] of [["rated", true], ["casual", false]]) {
      await page.getByRole("button", { name: "New Mille Bornes table" }).click();
      await page.locator(`#${choice}`).check();
      await page.locator("#create").click();
      await page.locator("#create-problem", { hasText: "scripted" }).waitFor();
      assert.equal(srv.sent.filter((m) => m.type === "create").pop().rated, want, choice);
    }
    noErrors(ann, assert);
  } finally {
    await ann.context.close();
  }
});
