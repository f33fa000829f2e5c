// The Mille Bornes table in Chromium against a real server and its
// computer player: whole hands played by dragging cards, with the keyboard
// alone and by double-clicks; click-click; a refused move's reason next to
// its card; a reload mid-hand; accessibility (axe-core) of the table and
// its dialogs; a 360-pixel-wide screen. Every move is chosen from the
// legal actions the page shows (the table's data-legal), never from
// rules of the test's own.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, launch, newPlayer, signIn, screenshot, noErrors, seriousViolations, openMilleTable } from "./harness.mjs";

let server;
let browser;

before(async () => {
  // Each next hand waits for its player's "Next hand": a short pause
  // would deal it by itself while a slow test still reads the scores.
  server = await startServer({ botDelay: 0, handPause: 120 });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const TABLE = ".mille";
const SAFETIES = ["extra_tank", "puncture_proof", "driving_ace", "right_of_way"];
const MILES = { 25: 25, 50: 50, 75: 75, 100: 100, 200: 200 };
const REMEDIES = ["gasoline", "spare_tire", "repairs", "end_of_limit", "go"];

/** Opens a new table against the `classic` computer from the lobby. */
function openTable(player, name, options) {
  return openMilleTable(player, server.url, name, options);
}

/** What the page shows of the game: its phase, legal actions, the
 *  viewer's side, and a counter of the observations drawn. */
async function state(page) {
  return page.evaluate((sel) => {
    const d = document.querySelector(sel).dataset;
    return {
      phase: d.phase,
      legal: d.legal ? d.legal.split("|") : [],
      myTeam: Number(d.myTeam),
      obs: d.obs,
      drawn: d.drawn === "true",
      scores: !!document.querySelector("dialog.mille-scores[open]"),
      extension: !!document.querySelector("dialog.mille-ext[open]"),
    };
  }, TABLE);
}

/** Waits for the next observation (or a dialog); a refusal fails the test. */
async function waitChange(page, obs) {
  await page.waitForFunction(
    ([sel, prev]) =>
      document.querySelector(sel)?.dataset.obs !== prev || document.querySelector("dialog.mille-scores[open], dialog.mille-ext[open]") || document.querySelector(".bubble"),
    [TABLE, obs],
    { timeout: 15000 },
  );
  const bubble = page.locator(".bubble");
  if (await bubble.count()) throw new Error(`a move was refused: ${await bubble.innerText()}`);
}

/** Where an action's card goes on the page. */
function targetOf(action, myTeam) {
  const [verb, card, team] = action.split(" ");
  if (verb === "discard") return `${TABLE} [data-target="discard"] .pile`;
  if (verb === "coup_fourre") return `${TABLE} [data-target="battle:${myTeam}"] .pile`;
  let pile = "battle";
  if (MILES[card]) pile = "distance";
  else if (SAFETIES.includes(card)) pile = "safeties";
  else if (card === "speed_limit" || card === "end_of_limit") pile = "speed";
  return `${TABLE} [data-target="${pile}:${team}"] .pile`;
}

/** A move among the legal ones: a coup fourré, a remedy, the longest
 *  distance, a hazard, a safety, else a discard (not of a safety). */
function choose(legal) {
  const rank = (a) => {
    const [verb, card] = a.split(" ");
    if (verb === "coup_fourre") return 0;
    if (verb === "play" && REMEDIES.includes(card)) return 1;
    if (verb === "play" && MILES[card]) return 2 + (200 - MILES[card]) / 1000;
    if (verb === "play" && SAFETIES.includes(card)) return 4;
    if (verb === "play") return 3;
    if (verb === "discard" && SAFETIES.includes(card)) return 9;
    return 5;
  };
  return [...legal].sort((a, b) => rank(a) - rank(b))[0];
}

/** Drags from the centre of one element to the centre of another with the mouse. */
async function drag(page, from, to) {
  const a = await page.locator(from).first().boundingBox();
  const b = await page.locator(to).first().boundingBox();
  assert.ok(a && b, `both ends of the drag are on screen: ${from} → ${to}`);
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + a.width / 2 + 10, a.y + a.height / 2 - 10, { steps: 2 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 6 });
  await page.mouse.up();
}

/** The same with a finger (touch events through the DevTools protocol). */
async function touchDrag(player, from, to) {
  const a = await player.page.locator(from).first().boundingBox();
  const b = await player.page.locator(to).first().boundingBox();
  const cdp = await player.context.newCDPSession(player.page);
  const [x0, y0, x1, y1] = [a.x + a.width / 2, a.y + a.height / 2, b.x + b.width / 2, b.y + b.height / 2];
  await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [{ x: x0, y: y0, id: 1 }] });
  for (let i = 1; i <= 8; i++) {
    await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: [{ x: x0 + ((x1 - x0) * i) / 8, y: y0 + ((y1 - y0) * i) / 8, id: 1 }] });
  }
  await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
  await cdp.detach();
}

const cardSel = (card) => `${TABLE} .hand-card[data-card="${card}"]`;

/** The hand's position (1..) of a card, as the keys number it. */
async function posOf(page, card) {
  return Number(await page.locator(cardSel(card)).first().getAttribute("data-pos"));
}

/** Presses Tab (or Shift+Tab) until the focused element matches `sel`. */
async function tabTo(page, sel, back = false) {
  for (let i = 0; i < 80; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s), sel)) return;
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
  }
  throw new Error(`Tab never reached ${sel}`);
}

/** Plays one action the way `how` says: "drag", "dblclick" or "keys". */
async function perform(page, how, action, s, turn) {
  const [verb, card] = action.split(" ");
  if (action === "draw") {
    if (how !== "keys") await page.locator(`${TABLE} [data-target="draw"] .pile`).click();
    else if (turn === 1) {
      // Once by Tab and Enter on the draw pile, else P.
      await tabTo(page, `${TABLE} [data-target="draw"] .pile`);
      await page.keyboard.press("Enter");
    } else await page.keyboard.press("p");
    return;
  }
  if (how === "drag") return drag(page, cardSel(card), targetOf(action, s.myTeam));
  if (how === "dblclick") {
    if (verb === "discard") return drag(page, cardSel(card), targetOf(action, s.myTeam));
    return page.locator(cardSel(card)).first().dblclick();
  }
  const pos = await posOf(page, card);
  if (turn <= 3 && verb === "play") {
    // The first plays: Tab into the hand, arrows to the card, Enter, then
    // Tab to the place (before the hand for one's own side) and Enter.
    await tabTo(page, `${TABLE} .hand-card`);
    const at = Number(await page.evaluate(() => document.activeElement.dataset.pos));
    for (let i = at; i < pos; i++) await page.keyboard.press("ArrowRight");
    assert.equal(await page.evaluate(() => document.activeElement.dataset.card), card);
    await page.keyboard.press("Enter");
    assert.equal(await page.locator(cardSel(card)).first().getAttribute("aria-pressed"), "true");
    const target = targetOf(action, s.myTeam);
    const own = target.includes(`:${s.myTeam}"`);
    await tabTo(page, target, own);
    await page.keyboard.press("Enter");
    return;
  }
  await page.keyboard.press(verb === "discard" ? "d" : "u");
  await page.keyboard.press(String(pos));
  await page.keyboard.press(turn % 2 ? "Enter" : " ");
}

/** Plays the viewer's side until the hand is over (the score dialog
 *  open); answers the number of actions played. */
async function playHand(page, how) {
  let turn = 0;
  for (let step = 0; step < 600; step++) {
    const s = await state(page);
    if (s.scores) return turn;
    if (s.phase === "hand_over" || s.phase === "game_over") {
      await page.locator("dialog.mille-scores").waitFor();
      return turn;
    }
    if (s.extension) {
      // End the trip: the hand is over sooner.
      if (how === "keys") {
        await page.keyboard.press("Tab");
        await page.keyboard.press("Enter");
      } else await page.locator("dialog.mille-ext").getByRole("button", { name: "No" }).click();
      await waitChange(page, s.obs);
      continue;
    }
    if (!s.legal.length) {
      await waitChange(page, s.obs);
      continue;
    }
    turn += 1;
    await perform(page, how, choose(s.legal), s, turn);
    await waitChange(page, s.obs);
    // The picture of a hand under way (docs/images/mille-table.png).
    if (how === "drag" && turn === 20) {
      await page.waitForTimeout(1500); // the last move's animation ends
      await screenshot(page, "mille-midhand");
    }
  }
  throw new Error("the hand did not end in 600 steps");
}

/** Waits for the next hand: a turn, or a coup-fourré chance that the
 *  first hazard of the hand may give. */
async function dealt(page) {
  await page.waitForFunction((sel) => document.querySelector(sel).dataset.phase !== "hand_over", TABLE);
  assert.ok(["turn", "coup_fourre"].includes((await state(page)).phase), "the next hand is dealt");
}

/** Checks the score dialog: every item, per side. */
async function checkScores(page) {
  const dlg = page.locator("dialog.mille-scores");
  await dlg.waitFor();
  const text = await dlg.innerText();
  for (const item of ["Milestones", "Each safety", "All 4 safeties", "Each coup fourré", "Trip completed", "Safe trip", "Delayed action", "Extension", "Shut-out", "Hand total", "Overall total"]) {
    assert.match(text, new RegExp(item), `the score dialog has ${item}`);
  }
  assert.match(text, /You/);
  assert.match(text, /Computer/);
}

test("a whole hand played by dragging cards, to the score dialog and the next hand", async () => {
  // With motion: the others' moves are animated.
  const ann = await newPlayer(browser, { reducedMotion: "no-preference" });
  try {
    await openTable(ann, "dragger");
    const { page } = ann;
    await screenshot(page, "mille-start");
    const moves = await playHand(page, "drag");
    // 700 miles take a Go and at least four distance cards, each after a draw.
    assert.ok(moves >= 8, `the hand took ${moves} actions`);
    await checkScores(page);
    await screenshot(page, "mille-hand-over");
    await page.locator("dialog.mille-scores").getByRole("button", { name: "Next hand" }).click();
    await dealt(page);
    await page.locator(`${TABLE} .statusbar`).getByText("Hand 2").waitFor();
    await page.waitForFunction(() => [...document.querySelectorAll("#announce p")].some((p) => /Hand 2 is dealt/.test(p.textContent)));
    noErrors(ann, assert);
  } finally {
    await ann.context.close();
  }
});

/** Waits until the viewer may draw (or has a coup-fourré chance: under
 *  BSD rules one may come before the first draw); answers the state. */
async function drawOrChance(page) {
  await page.waitForFunction((sel) => /(^|\|)(draw|decline)(\||$)/.test(document.querySelector(sel).dataset.legal), TABLE, { timeout: 15000 });
  return state(page);
}

/** Waits until the viewer has drawn: it clicks the draw pile, or lets a
 *  coup-fourré chance pass with P (the page then draws). */
async function drawByClick(page) {
  const s = await drawOrChance(page);
  if (s.legal.includes("decline")) await page.keyboard.press("p");
  else await page.locator(`${TABLE} [data-target="draw"] .pile`).click();
  await page.waitForFunction((sel) => {
    const d = document.querySelector(sel).dataset;
    return (d.drawn === "true" && d.legal) || document.querySelector(".bubble");
  }, TABLE, { timeout: 15000 });
  await waitChange(page, s.obs);
  return state(page);
}

/** Plays turns by double-click until the viewer's turn starts with a draw
 *  (not with a coup-fourré chance). */
async function untilDraw(page) {
  for (let i = 0; i < 30; i++) {
    if ((await drawOrChance(page)).legal.includes("draw")) return;
    const s = await drawByClick(page);
    await page.locator(cardSel(choose(s.legal).split(" ")[1])).first().dblclick();
    await waitChange(page, s.obs);
  }
  throw new Error("no turn started with a draw");
}

test("a card played by double-click, another by click then click", async () => {
  const p = await newPlayer(browser);
  try {
    await openTable(p, "clicker");
    const { page } = p;
    let s = await drawByClick(page);
    // Double-click: the card is played where it can go, else discarded.
    const first = choose(s.legal).split(" ")[1];
    const count = await page.locator(`${TABLE} .hand-card`).count();
    const name = (await page.locator(cardSel(first)).first().getAttribute("aria-label")).replace(/^\d+: /, "");
    await page.locator(cardSel(first)).first().dblclick();
    await waitChange(page, s.obs);
    await page.waitForFunction((n) => [...document.querySelectorAll("#announce p")].some((p) => /^You (played|discarded) /.test(p.textContent) && p.textContent.includes(n)), name);
    assert.equal(await page.locator(`${TABLE} .hand-card`).count(), count - 1, "the card left the hand");

    // Click-click: the card is selected, the places that take it are
    // outlined, the click on one plays it there.
    s = await drawByClick(page);
    const action = s.legal.find((a) => a.startsWith("play ")) || s.legal.find((a) => a.startsWith("discard "));
    const card = action.split(" ")[1];
    await page.locator(cardSel(card)).first().click();
    assert.equal(await page.locator(cardSel(card)).first().getAttribute("aria-pressed"), "true");
    const target = targetOf(action, s.myTeam);
    assert.equal(await page.locator(target).locator("xpath=..").getAttribute("data-legal"), "true", "the place is outlined");
    await screenshot(page, "mille-selected");
    await page.locator(target).click();
    await waitChange(page, s.obs);
    const words = action.startsWith("discard") ? "You discarded" : "You played";
    await page.waitForFunction((w) => [...document.querySelectorAll("#announce p")].some((p) => p.textContent.startsWith(w)), words);
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});

test("a refused move shows the server's reason next to its card, and the card stays", async () => {
  const p = await newPlayer(browser);
  try {
    await openTable(p, "refused");
    const { page } = p;
    await untilDraw(page);
    // Before the draw: a discard is refused.
    const card = await page.locator(`${TABLE} .hand-card`).first().getAttribute("data-card");
    await drag(page, `${TABLE} .hand-card`, `${TABLE} [data-target="discard"] .pile`);
    const bubble = page.locator(".bubble");
    await bubble.waitFor();
    assert.equal(await bubble.innerText(), "Draw a card first: every turn starts with a pick from the deck");
    await page.locator("#alert").getByText("Draw a card first").waitFor({ state: "attached" });
    const refused = page.locator(`${TABLE} .hand-card.refused`);
    assert.equal(await refused.getAttribute("data-card"), card, "the card is back in the hand");
    const [b, c] = [await bubble.boundingBox(), await refused.boundingBox()];
    assert.ok(b.x < c.x + c.width && b.x + b.width > c.x, "the bubble is under the card");
    await coversNothing(page);
    assert.equal(await refused.getAttribute("aria-describedby"), "mille-bubble");

    // The draw clears the refusal. (More refusals: the scripted server's
    // tests, which reach them every time.)
    await drawByClick(page);
    assert.equal(await page.locator(".bubble").count(), 0, "the next move clears the refusal");
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});

/** Whether two boxes overlap (by more than a pixel). */
const overlap = (a, b) => a && b && a.x + 1 < b.x + b.width && b.x + 1 < a.x + a.width && a.y + 1 < b.y + b.height && b.y + 1 < a.y + a.height;

/** Fails if the refusal bubble covers the hand's heading, the Sort
 *  button or a card. */
async function coversNothing(page) {
  const b = await page.locator(".bubble").boundingBox();
  assert.ok(b, "a bubble is shown");
  for (const sel of ["#mille-hand", "#mille-sort", `${TABLE} .hand-card`, `${TABLE} .area-discard .pile`]) {
    for (const node of await page.locator(sel).all()) assert.ok(!overlap(b, await node.boundingBox()), `the refusal bubble covers ${sel}`);
  }
}

/** Fails if a place's ? button covers its pile. */
async function helpBadgesClear(page) {
  for (const area of await page.locator(`${TABLE} .area`).all()) {
    const q = await area.locator(".qhelp").boundingBox();
    const pile = await area.locator(".pile").boundingBox();
    assert.ok(!overlap(q, pile), `a ? covers its pile: ${await area.getAttribute("class")}`);
  }
}

test("a selected card's places are told to a screen reader, not only outlined; F1 opens the help at its start", async () => {
  const p = await newPlayer(browser);
  try {
    await openTable(p, "teller");
    const { page } = p;
    const s = await drawByClick(page);
    const action = s.legal.find((a) => a.startsWith("play ")) || s.legal.find((a) => a.startsWith("discard "));
    const card = action.split(" ")[1];
    await page.locator(cardSel(card)).first().click();
    await page.locator("#announce p").filter({ hasText: /selected\. It can go on/ }).waitFor({ state: "attached" });
    const places = page.locator(`${TABLE} .area[data-legal="true"] > .pile`);
    assert.ok((await places.count()) >= 1, "some place takes the card");
    for (const pile of await places.all()) assert.equal(await pile.getAttribute("aria-describedby"), "mille-can-take");
    assert.match(await page.locator("#mille-can-take").textContent(), /takes the selected card/);
    await page.keyboard.press("Escape");
    assert.equal(await page.locator(`${TABLE} [aria-describedby="mille-can-take"]`).count(), 0, "nothing selected, nothing described so");

    // F1: the help opens on its first lines, not on its key table.
    await page.keyboard.press("F1");
    const help = page.locator("dialog.mille-help");
    await help.waitFor();
    assert.equal(await help.evaluate((d) => d.scrollTop), 0, "the help is not scrolled");
    const inView = await help.locator(".dlg-body p").first().evaluate((p) => {
      const r = p.getBoundingClientRect();
      const d = p.closest("dialog").getBoundingClientRect();
      return r.top >= d.top && r.bottom <= d.bottom;
    });
    assert.ok(inView, "the introduction is in view");
    await page.keyboard.press("Escape");
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});

test("a classic table of four (two teams): turns played by double-click, a hazard dropped on the other team's battle pile goes to that team", async () => {
  const p = await newPlayer(browser);
  const { page } = p;
  // The moves as the page sends them.
  const actions = [];
  page.on("websocket", (ws) => ws.on("framesent", (f) => {
    const m = JSON.parse(f.payload);
    if (m.type === "move") actions.push(m.action);
  }));
  const HAZARDS = ["stop", "out_of_gas", "flat_tire", "accident"];
  try {
    await signIn(p, server.url, "fourth");
    await page.getByRole("button", { name: "New Mille Bornes table" }).click();
    await page.locator("#rules").selectOption("classic");
    await page.locator("#players").selectOption("4");
    for (const i of [1, 2, 3]) await page.locator(`#seat-${i}`).selectOption("computer:classic");
    await page.locator("#create").click();
    await page.locator(`${TABLE}[data-obs]`).waitFor();
    assert.equal(await page.locator(`${TABLE} .side`).count(), 2, "two sides: the teams");
    await screenshot(page, "mille-4-players-teams");
    await page.locator(`${TABLE} .side.mine .team-name`).getByText("Your team:").waitFor();
    let turns = 0;
    let aimed = null;
    for (let step = 0; step < 600 && !(aimed && turns >= 5); step++) {
      const s = await state(page);
      if (s.scores) {
        await page.locator("dialog.mille-scores").getByRole("button", { name: "Next hand" }).click();
        await dealt(page);
        continue;
      }
      if (!s.legal.length) {
        await waitChange(page, s.obs);
        continue;
      }
      if (s.legal.includes("draw")) {
        await page.locator(`${TABLE} [data-target="draw"] .pile`).click();
        await waitChange(page, s.obs);
        continue;
      }
      const hazard = !aimed && s.legal.find((a) => {
        const [verb, card, team] = a.split(" ");
        return verb === "play" && HAZARDS.includes(card) && Number(team) !== s.myTeam;
      });
      if (hazard) {
        const [, card, team] = hazard.split(" ");
        const name = (await page.locator(cardSel(card)).first().getAttribute("aria-label")).replace(/^\d+: /, "");
        await drag(page, cardSel(card), `${TABLE} [data-target="battle:${team}"] .pile`);
        await waitChange(page, s.obs);
        assert.equal(actions.at(-1), hazard, "the hazard is sent to the team it was dropped on");
        await page.locator("#announce p").filter({ hasText: `You played ${name} on team ${Number(team) + 1}.` }).waitFor({ state: "attached" });
        aimed = hazard;
        continue;
      }
      const action = choose(s.legal);
      await page.locator(cardSel(action.split(" ")[1])).first().dblclick();
      await waitChange(page, s.obs);
      assert.equal(actions.at(-1), action, "the double-click played what was chosen");
      turns += 1;
    }
    assert.ok(aimed, "a hazard was played on the other team");
    assert.ok(turns >= 5, `${turns} turns played by double-click`);
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});

test("a reload in the middle of a hand comes back to the same seat and hand", async () => {
  const p = await newPlayer(browser);
  try {
    const table = await openTable(p, "reloader");
    const { page } = p;
    const s = await drawByClick(page);
    const hand = () => page.locator(`${TABLE} .hand-card`).evaluateAll((els) => els.map((e) => e.dataset.card));
    const before = await hand();
    assert.equal(before.length, 7);
    await page.reload();
    await page.locator(`${TABLE}[data-obs]`).waitFor();
    assert.match(page.url(), new RegExp(`#/table/${table}$`));
    assert.deepEqual(await hand(), before, "the same hand");
    const after = await state(page);
    assert.equal(after.myTeam, s.myTeam, "the same seat");
    assert.deepEqual(after.legal, s.legal, "the same decision");
    await page.locator(`${TABLE} .side.mine h2`).getByText("You (reloader)").waitFor();
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});

test("axe-core finds no serious violation on the table, its dialogs or a spectator's view", async () => {
  const p = await newPlayer(browser);
  const eve = await newPlayer(browser);
  try {
    const table = await openTable(p, "axe");
    const { page } = p;
    const s = await drawByClick(page);
    await page.locator(cardSel(choose(s.legal).split(" ")[1])).first().click();
    assert.deepEqual(await seriousViolations(page), [], "the table with a card selected");
    await page.keyboard.press("w");
    await page.locator(".score-window").waitFor();
    assert.deepEqual(await seriousViolations(page), [], "the table with the score window");
    await screenshot(page, "mille-score-window");
    await page.keyboard.press("F1");
    await page.locator("dialog.mille-help").waitFor();
    assert.deepEqual(await seriousViolations(page), [], "the help");
    await screenshot(page, "mille-help");
    await page.keyboard.press("Escape");
    await page.locator(`${TABLE} .area-battle .qhelp`).first().click();
    await page.getByRole("dialog", { name: "Battle pile" }).waitFor();
    await page.keyboard.press("Escape");

    // A spectator sees every side, no hand, and cannot play.
    await signIn(eve, server.url, "eve");
    await eve.page.goto(`${server.url}#/table/${table}?watch`);
    await eve.page.locator(`${TABLE}[data-obs]`).waitFor();
    assert.equal(await eve.page.locator(`${TABLE} .hand-card`).count(), 0);
    assert.equal(await eve.page.locator(`${TABLE} .side`).count(), 2);
    assert.equal(await eve.page.locator(`${TABLE} button.pile`).count(), 0);
    assert.deepEqual(await seriousViolations(eve.page), [], "the spectator's view");
    await screenshot(eve.page, "mille-spectator");

    await page.keyboard.press("Escape");
    await playHand(page, "dblclick");
    await checkScores(page);
    assert.deepEqual(await seriousViolations(page), [], "the score dialog");
    noErrors(p, assert);
    noErrors(eve, assert);
  } finally {
    await p.context.close();
    await eve.context.close();
  }
});

test("a whole hand played with the keyboard alone", async () => {
  const p = await newPlayer(browser);
  try {
    await openTable(p, "keyboard");
    const { page } = p;
    // From here on, no mouse: keys only.
    // O sorts the hand or not, and the choice is remembered.
    const sort = page.locator("#mille-sort");
    assert.equal(await sort.getAttribute("aria-pressed"), "true");
    await page.keyboard.press("o");
    assert.equal(await page.locator("#mille-sort").getAttribute("aria-pressed"), "false");
    assert.equal(await page.evaluate(() => localStorage.getItem("mille-sort-hand")), "0");
    await page.keyboard.press("o");
    assert.equal(await page.locator("#mille-sort").getAttribute("aria-pressed"), "true");
    // Q asks first; Escape stays.
    await page.keyboard.press("q");
    await page.getByRole("dialog", { name: "Leave the table?" }).waitFor();
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });
    assert.match(page.url(), /#\/table\/\d+$/);
    assert.ok((await playHand(page, "keys")) >= 8);
    await checkScores(page);
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Next hand", "the score dialog's button has the focus");
    await page.keyboard.press("Enter");
    await dealt(page);
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});

test("at 360 px wide nothing overflows, and the table grows on a 4K screen", async () => {
  const p = await newPlayer(browser, { viewport: { width: 360, height: 740 } });
  const big = await newPlayer(browser, { viewport: { width: 3840, height: 2160 }, colorScheme: "dark" });
  try {
    await openTable(p, "narrow");
    const { page } = p;
    const s = await drawByClick(page);
    await page.locator(cardSel(choose(s.legal).split(" ")[1])).first().click();
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok((await overflow()) <= 0, `the table is ${await overflow()} px wider than the screen`);
    const card = await page.locator(`${TABLE} .hand-card`).first().boundingBox();
    assert.ok(card.width >= 60, `hand cards stay legible (${card.width} px)`);
    await screenshot(page, "mille-360");
    // A refusal's bubble stays on the screen too.
    await page.keyboard.press("Escape");
    await drag(page, `${TABLE} .hand-card >> nth=-1`, `${TABLE} [data-target="draw"] .pile`);
    assert.equal(await page.locator(".bubble").count(), 0, "a drop on the draw pile puts the card back");
    assert.equal(await page.locator(`${TABLE} .hand-card`).count(), 7, "and the card is still in the hand");
    // A finger drags a card to the discard pile.
    const discard = s.legal.find((a) => a.startsWith("discard "));
    await touchDrag(p, cardSel(discard.split(" ")[1]), `${TABLE} [data-target="discard"] .pile`);
    await waitChange(page, s.obs);
    await page.locator("#announce p").filter({ hasText: /^You discarded/ }).waitFor({ state: "attached" });

    await openTable(big, "large");
    const wide = await big.page.locator(`${TABLE} .hand-card`).first().boundingBox();
    assert.ok(wide.width >= 180, `cards grow on a 4K screen (${wide.width} px)`);
    await screenshot(big.page, "mille-4k-dark");
    noErrors(p, assert);
    noErrors(big, assert);
  } finally {
    await p.context.close();
    await big.context.close();
  }
});

// A scripted server for what a dealt game reaches only by chance: the
// page is served by the real server, its WebSocket answered by the test.
const ZERO = { miles: 0, safeties: 0, all_safeties: 0, coups: 0, trip: 0, delayed_action: 0, safe_trip: 0, extension: 0, shut_out: 0 };
const side = (team, more = {}) => ({ team, battle: [], speed: [], distance: [], safeties: [], coups: [], score: { hand: 0, game: 0 }, ...more });

function observation({ status, legal = [], hand, events = [], teams, scores, rules = "bsd", deck = 40, spectator = false, hand_number = 0, sides = 2, target = 700 }) {
  // Two sides unless told: `sides` players, each a side of its own.
  const others = Array.from({ length: sides - 1 }, (_, i) => i + 1);
  return {
    rules, seat: 0, hand, deck, discards: ["25"], target, extended: target > 700,
    seats: [{ seat: 0, team: 0, hand_size: spectator ? 6 : hand.length }, ...others.map((i) => ({ seat: i, team: i, hand_size: 6 }))],
    teams: teams || [side(0, { battle: ["go", "stop"], distance: ["100", "100"] }), side(1, { battle: ["go"], distance: ["200"] })],
    viewer: spectator ? "spectator" : { seat: 0 }, config: { rules, players: sides, stacking: false },
    status, legal, events, hand_number, games_won: Array(sides).fill(0), hand_scores: scores || Array(sides).fill(ZERO), last_hand: null,
    seat_info: [{ name: "ann", kind: "human" }, ...others.map((i) => ({ name: i === 1 ? "BSD" : `Computer ${i}`, kind: "computer", level: "classic" }))],
  };
}

/** Answers the page's WebSocket as a server would: `first` is the
 *  observation of the table (1) it joins, or watches with `watch`. Answers
 *  helpers: `update(o)` (a move everybody sees), `ack(m)`, `refuse(m,
 *  message)`, `moveSent(action)` (waits for the page to send it),
 *  `moves(action)` (how many it sent), `announced(text)` and `sent`. */
async function scripted(p, first, { watch = false } = {}) {
  const sent = [];
  let ws;
  let seq = 9;
  await p.context.routeWebSocket(/\/ws$/, (route) => {
    ws = route;
    route.onMessage((text) => {
      const m = JSON.parse(text);
      sent.push(m);
      const reply = (r) => route.send(JSON.stringify(r));
      if (m.type === "hello") {
        reply({ type: "welcome", version: 1, server: "script", name: m.name, token: "0123456789abcdef",
          limits: { max_message_bytes: 65536, messages_per_second: 20, burst: 40, idle_seconds: 120, away_seconds: 60 },
          seats: watch ? [] : [{ table: 1, game: "mille", seat: 0 }], games: [{ game: "mille", levels: ["classic"] }] });
      } else if (m.type === "join") reply({ type: "joined", table: 1, seat: 0, seq, observation: observation(first) });
      else if (m.type === "watch") reply({ type: "watching", table: 1, seq, observation: observation({ ...first, spectator: true }) });
      else if (m.type === "list") reply({ type: "tables", tables: [] });
      else if (m.type === "ping") reply({ type: "pong" });
    });
  });
  const moves = (action) => sent.filter((x) => x.type === "move" && x.action === action).length;
  return {
    sent,
    moves,
    // The ack names the number the update that follows it carries.
    update: (o) => ws.send(JSON.stringify({ type: "update", table: 1, seq: ++seq, observation: observation(o) })),
    ack: (m) => ws.send(JSON.stringify({ type: "ack", table: 1, id: m.id, seq: seq + 1 })),
    refuse: (m, message) => ws.send(JSON.stringify({ type: "error", table: 1, id: m.id, code: "illegal", message })),
    async moveSent(action) {
      for (let i = 0; i < 100; i++) {
        const m = sent.find((x) => x.type === "move" && x.action === action && !x.seen);
        if (m) {
          m.seen = true;
          return m;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`the page never sent ${action}: ${JSON.stringify(sent.filter((x) => x.type === "move").map((x) => x.action))}`);
    },
    announced: (text) => p.page.locator("#announce p").filter({ hasText: text }).first().waitFor({ state: "attached" }),
    /** Opens the table's address and signs in as `name`. */
    async open(name, hash = "#/table/1") {
      await p.page.goto(`${server.url}${hash}`);
      await p.page.locator("#name").fill(name);
      await p.page.getByRole("button", { name: "Play" }).click();
      await p.page.locator(`${TABLE}[data-obs]`).waitFor();
    },
  };
}

/** Empties the live region, so that what follows is all it says. */
const quiet = (page) => page.evaluate(() => document.getElementById("announce").replaceChildren());
/** The live region's sentences. */
const said = (page) => page.locator("#announce p").allInnerTexts();
/** A moment for what the page would wrongly send or say. */
const moment = (page) => page.waitForTimeout(300);

test("a coup fourré, a chance let pass, the extension question and the game's end (scripted server)", async () => {
  const p = await newPlayer(browser);
  const srv = await scripted(p, {
    status: { phase: "coup_fourre", seat: 0, hazard: "stop", attacker: 1 },
    legal: ["coup_fourre right_of_way", "decline"],
    hand: ["25", "go", "right_of_way", "extra_tank", "gasoline", "75"],
    events: [{ event: "played", seat: 1, card: "stop", team: 0 }],
  });
  const { sent, update, ack, moveSent, announced } = srv;
  try {
    const { page } = p;
    await srv.open("ann");
    await announced("BSD played Stop on you.");
    await page.locator("#mille-prompt").getByText("coup fourré").waitFor();
    await page.locator("#alert p").filter({ hasText: "Coup fourré chance: you hold Right of Way against the Stop" }).waitFor({ state: "attached" });
    assert.equal(sent.filter((m) => m.type === "join").length, 1, "the table is joined once");

    // A click on the matching safety is the coup fourré.
    await page.locator(cardSel("right_of_way")).click();
    ack(await moveSent("coup_fourre right_of_way"));
    update({
      status: { phase: "turn", seat: 0, drawn: true },
      legal: ["play 25 0", "discard 25"],
      hand: ["25", "go", "extra_tank", "gasoline", "75", "50", "100"],
      teams: [side(0, { battle: ["go", "stop"], distance: ["100", "100"], safeties: ["right_of_way"], coups: ["right_of_way"] }), side(1, { battle: ["go"], distance: ["200"] })],
      events: [{ event: "coup_fourre", seat: 0, safety: "right_of_way", hazard: "stop" }, { event: "drew", seat: 0, card: "50" }, { event: "drew", seat: 0, card: "100" }],
    });
    await announced("Coup fourré! You answered Stop with Right of Way.");
    await announced("You drew 100 miles.");
    // After a coup fourré (bsd: the cards are drawn already) it is the viewer's turn.
    await announced("Your turn: play or discard a card.");
    await page.locator(`${TABLE} [data-target="safeties:0"] svg.card-coup`).waitFor();

    // P during a chance lets it pass, then picks once the draw is legal.
    update({
      status: { phase: "coup_fourre", seat: 0, hazard: "out_of_gas", attacker: 1 },
      legal: ["coup_fourre extra_tank", "decline"],
      hand: ["25", "go", "extra_tank", "gasoline", "75", "50"],
      events: [{ event: "played", seat: 1, card: "out_of_gas", team: 0 }],
    });
    await page.locator("#mille-prompt").getByText("Extra Tank").waitFor();
    await page.keyboard.press("p");
    ack(await moveSent("decline"));
    update({ status: { phase: "turn", seat: 0, drawn: false }, legal: ["draw"], hand: ["25", "go", "extra_tank", "gasoline", "75", "50"], events: [{ event: "declined_coup_fourre", seat: 0 }] });
    ack(await moveSent("draw"));
    await announced("You let the coup fourré pass.");

    // The extension question: Yes extends.
    update({ status: { phase: "extension", seat: 0 }, legal: ["extend", "end_trip"], hand: ["25", "go", "extra_tank", "gasoline", "75", "50"] });
    const ext = page.getByRole("dialog", { name: "Extension" });
    await ext.waitFor();
    assert.deepEqual(await seriousViolations(page), [], "the extension dialog");
    await screenshot(page, "mille-extension");
    await ext.getByRole("button", { name: "Yes" }).click();
    ack(await moveSent("extend"));

    // The end of the game: the winners, the scores, the high-score table.
    const won = { ...ZERO, miles: 1000, safeties: 100, coups: 300, trip: 400, extension: 200 };
    update({
      status: { phase: "game_over" },
      hand: [],
      teams: [side(0, { score: { hand: 2000, game: 3500 }, distance: ["200", "200", "100", "100", "100", "100", "100", "100"] }), side(1, { score: { hand: 200, game: 4200 }, distance: ["200"] })],
      scores: [won, { ...ZERO, miles: 200 }],
      events: [{ event: "extension", seat: 0, extend: true }, { event: "trip_completed", team: 0 }, { event: "hand_over", scores: [won, { ...ZERO, miles: 200 }], totals: [5500, 4400] }, { event: "game_over", winners: [0] }],
    });
    const over = page.getByRole("dialog", { name: "Game over" });
    await over.waitFor();
    await over.getByText("You win the game!").waitFor();
    assert.match(await over.innerText(), /Overall total\s+5500\s+4400/);
    assert.equal(await over.getByRole("link", { name: "The high-score table" }).getAttribute("href"), "#/scores/mille");
    await announced("The game is over: you win!");
    await screenshot(page, "mille-game-over");
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});

test("between hands: a spectator is offered no Next hand; a player says ready from the prompt line; the focus stays on the table (scripted server)", async () => {
  const p = await newPlayer(browser);
  const eve = await newPlayer(browser);
  const hand = ["25", "go", "extra_tank", "gasoline", "75", "50"];
  const scores = [{ ...ZERO, miles: 700, trip: 400 }, { ...ZERO, miles: 200 }];
  const over = { status: { phase: "hand_over" }, hand, scores, events: [{ event: "hand_over", scores, totals: [1100, 200] }] };
  const dealt = { status: { phase: "turn", seat: 0, drawn: false }, legal: ["draw"], hand: [...hand, "100"], events: [{ event: "dealt", hand: 1, first: 0 }] };
  try {
    // The spectator's score dialog only closes, and the prompt line has no Next hand.
    const watched = await scripted(eve, over, { watch: true });
    await watched.open("eve", "#/table/1?watch");
    const eveScores = eve.page.locator("dialog.mille-scores");
    await eveScores.waitFor();
    assert.deepEqual(await eveScores.getByRole("button").allInnerTexts(), ["Close"]);
    await eve.page.keyboard.press("Escape");
    await eveScores.waitFor({ state: "detached" });
    assert.equal(await eve.page.locator(`${TABLE} .prompt`).getByRole("button", { name: "Next hand" }).count(), 0);
    assert.equal(watched.sent.filter((m) => m.type === "ready").length, 0);

    // The player closes the dialog, then says ready from the prompt line.
    const srv = await scripted(p, over);
    const { page } = p;
    await srv.open("ann");
    const dlg = page.locator("dialog.mille-scores");
    await dlg.getByRole("button", { name: "Next hand" }).waitFor();
    await page.keyboard.press("Escape");
    await dlg.waitFor({ state: "detached" });
    assert.notEqual(await page.evaluate(() => document.activeElement?.tagName), "BODY", "the focus comes back to the table");
    await page.locator(`${TABLE} .prompt`).getByRole("button", { name: "Next hand" }).click();
    await page.locator("#mille-prompt").getByText("You are ready.").waitFor();
    assert.equal(srv.sent.filter((m) => m.type === "ready").length, 1, "ready is sent");
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.focus), "pile-draw", "the button went: the focus is on the draw pile");

    // A dialog that the next deal closes gives the focus back to the
    // table, although the button that opened it is gone.
    await page.locator(`${TABLE} [data-focus="show-scores"]`).click();
    await dlg.waitFor();
    assert.deepEqual(await dlg.getByRole("button").allInnerTexts(), ["Close"], "ready once");
    srv.update(dealt);
    await dlg.waitFor({ state: "detached" });
    await page.waitForFunction(() => document.activeElement?.dataset.focus === "pile-draw");
    // A focused button that the next update removes: the draw pile.
    srv.update({ ...over, hand_number: 1 });
    await dlg.waitFor();
    await page.keyboard.press("Escape");
    await dlg.waitFor({ state: "detached" });
    await page.locator(`${TABLE} [data-focus="show-scores"]`).focus();
    srv.update({ ...dealt, hand_number: 2 });
    await page.waitForFunction(() => document.activeElement?.dataset.focus === "pile-draw");
    noErrors(p, assert);
    noErrors(eve, assert);
  } finally {
    await p.context.close();
    await eve.context.close();
  }
});

test("the others' moves leave the focus alone; a waiting pick is shown and sent once; every new turn is announced (scripted server)", async () => {
  const p = await newPlayer(browser);
  const hand = ["25", "go", "extra_tank", "gasoline", "75", "50"];
  const teams = [side(0, { battle: ["go"], distance: ["100"] }), side(1, { battle: [] })];
  const srv = await scripted(p, { rules: "classic", status: { phase: "turn", seat: 1, drawn: false }, hand, teams });
  const { update, ack, moveSent, announced, moves } = srv;
  try {
    const { page } = p;
    await srv.open("ann");
    // The focus on a card: another seat's moves change nothing about it.
    await page.locator(cardSel("75")).focus();
    await page.evaluate(() => {
      document.activeElement.mark = "kept";
      window.focusins = 0;
      document.addEventListener("focusin", () => (window.focusins += 1));
    });
    await quiet(page);
    update({ rules: "classic", status: { phase: "turn", seat: 1, drawn: true }, hand, teams, events: [{ event: "drew", seat: 1 }] });
    const played = [side(0, { battle: ["go"], distance: ["100"] }), side(1, { battle: ["go"] })];
    update({ rules: "classic", status: { phase: "turn", seat: 0, drawn: false }, legal: ["draw"], hand, teams: played, events: [{ event: "played", seat: 1, card: "go", team: 1 }] });
    await announced("BSD played Go.");
    await announced("Your turn: pick a card (P).");
    assert.ok(!(await said(page)).some((t) => /drew/.test(t)), "another seat's draw is not read out");
    assert.equal(await page.evaluate(() => document.activeElement?.mark), "kept", "the same node has the focus");
    assert.equal(await page.evaluate(() => window.focusins), 0, "and it was not focused again");

    // A pick the server holds (another seat decides on a coup fourré):
    // the pile says it waits, and neither a click nor P sends it again.
    const pile = page.locator(`${TABLE} [data-target="draw"] .pile`);
    await pile.click();
    const draw = await moveSent("draw");
    await page.locator(`${TABLE} .pile.waiting`).waitFor();
    assert.match(await pile.getAttribute("aria-label"), /waiting/);
    assert.equal(await page.locator(`${TABLE} .pile.can-pick`).count(), 0, "the pile no longer calls for a click");
    await page.locator("#mille-prompt").getByText("it waits").waitFor();
    await pile.click();
    await page.keyboard.press("p");
    await moment(page);
    assert.equal(moves("draw"), 1, "the pick is sent once");
    ack(draw);
    const drawn = [...hand, "right_of_way"];
    update({ rules: "classic", status: { phase: "turn", seat: 0, drawn: true }, legal: ["play right_of_way 0", "play 25 0", "discard 25"], hand: drawn, teams: played, events: [{ event: "drew", seat: 0, card: "right_of_way" }] });
    await announced("You drew Right of Way.");
    await page.locator(`${TABLE} .pile.waiting`).waitFor({ state: "detached" });

    // A safety gives another turn: the same seat and phase, announced again.
    await quiet(page);
    await page.locator(cardSel("right_of_way")).dblclick();
    ack(await moveSent("play right_of_way 0"));
    const safe = [side(0, { battle: ["go"], distance: ["100"], safeties: ["right_of_way"] }), side(1, { battle: ["go"] })];
    update({ rules: "classic", status: { phase: "turn", seat: 0, drawn: false }, legal: ["draw"], hand, teams: safe, events: [{ event: "played", seat: 0, card: "right_of_way", team: 0 }] });
    await announced("Your turn: pick a card (P).");

    // A turn that starts drawn, the draw pile being out.
    update({ rules: "classic", deck: 0, status: { phase: "turn", seat: 1, drawn: true }, hand, teams: safe, events: [{ event: "discarded", seat: 0, card: "25" }] });
    await quiet(page);
    update({ rules: "classic", deck: 0, status: { phase: "turn", seat: 0, drawn: true }, legal: ["play 75 0", "discard 75"], hand, teams: safe, events: [{ event: "discarded", seat: 1, card: "stop" }] });
    await announced("Your turn: the draw pile is out, play or discard.");
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});

test("a safety is discarded only after Yes under the published rules, refused with its reason under BSD; Escape ends a drag, Tab a U (scripted server)", async () => {
  const p = await newPlayer(browser);
  const bsd = await newPlayer(browser);
  const hand = ["25", "go", "extra_tank", "gasoline", "75", "50", "100"];
  const legal = ["play extra_tank 0", "play go 0", "discard 25", "discard go", "discard extra_tank", "discard gasoline", "discard 75", "discard 50", "discard 100"];
  const turn = { status: { phase: "turn", seat: 0, drawn: true }, legal, hand, teams: [side(0), side(1)] };
  try {
    const srv = await scripted(p, { ...turn, rules: "classic" });
    const { page } = p;
    await srv.open("ann");
    const ask = page.getByRole("dialog", { name: "Discard Extra Tank?" });
    // Dragged to the discard pile: asked; No keeps it.
    await drag(page, cardSel("extra_tank"), `${TABLE} [data-target="discard"] .pile`);
    await ask.waitFor();
    assert.match(await ask.innerText(), /Really discard it\?/);
    assert.deepEqual(await ask.getByRole("button").allInnerTexts(), ["Yes", "No"]);
    await ask.getByRole("button", { name: "No" }).click();
    await ask.waitFor({ state: "detached" });
    // Click, then the discard pile: asked; Escape keeps it.
    await page.locator(cardSel("extra_tank")).click();
    await page.locator(`${TABLE} [data-target="discard"] .pile`).click();
    await ask.waitFor();
    await page.keyboard.press("Escape");
    await ask.waitFor({ state: "detached" });
    await moment(page);
    assert.equal(srv.moves("discard extra_tank"), 0, "nothing is sent without a Yes");
    assert.equal(await page.locator(cardSel("extra_tank")).count(), 1);
    // Double-click plays a safety, never discards it: no question.
    await page.locator(cardSel("extra_tank")).dblclick();
    srv.ack(await srv.moveSent("play extra_tank 0"));
    assert.equal(await ask.count(), 0);
    const next = hand.map((c) => (c === "extra_tank" ? "puncture_proof" : c));
    srv.update({ ...turn, rules: "classic", hand: next, legal: [...legal, "discard puncture_proof"], teams: [side(0, { safeties: ["extra_tank"] }), side(1)], events: [{ event: "played", seat: 0, card: "extra_tank", team: 0 }, { event: "drew", seat: 0, card: "puncture_proof" }] });
    // D, its number, Enter: asked; Yes discards it.
    await page.locator(cardSel("puncture_proof")).waitFor();
    const pos = await posOf(page, "puncture_proof");
    await page.keyboard.press("d");
    await page.keyboard.press(String(pos));
    await page.keyboard.press("Enter");
    await page.getByRole("dialog", { name: "Discard Puncture Proof?" }).getByRole("button", { name: "Yes" }).click();
    await srv.moveSent("discard puncture_proof");

    // Escape during a drag: nothing is played, and the release selects nothing.
    const a = await page.locator(cardSel("75")).boundingBox();
    await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await page.mouse.down();
    await page.mouse.move(a.x + a.width / 2 + 40, a.y - 60, { steps: 4 });
    await page.locator(".mille-ghost.dragged").waitFor();
    await page.keyboard.press("Escape");
    await page.locator(".mille-ghost.dragged").waitFor({ state: "detached" });
    await page.mouse.up();
    await moment(page);
    assert.equal(await page.locator(`${TABLE} .hand-card.selected`).count(), 0, "no card is selected");
    assert.equal(await page.locator(cardSel("75")).getAttribute("aria-pressed"), "false");
    assert.equal(srv.moves("discard 75") + srv.moves("play 75 0"), 0);

    // U then Tab: the choice is cancelled and the focus moves on.
    await page.locator(`${TABLE} .hand-card`).first().focus();
    await page.keyboard.press("u");
    await page.locator("#mille-prompt").getByText("Use which card?").waitFor();
    await page.keyboard.press("Tab");
    await page.locator("#mille-prompt").getByText("Use which card?").waitFor({ state: "detached" });
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.pos), "2", "Tab went to the next card");
    noErrors(p, assert);

    // BSD: the discard is sent, and refused with the rules' reason;
    // distance before a Go too. The bubble shows the reason over the card.
    const b = await scripted(bsd, { ...turn, legal: legal.filter((x) => x !== "discard extra_tank") });
    await b.open("bob");
    await drag(bsd.page, cardSel("extra_tank"), `${TABLE} [data-target="discard"] .pile`);
    const why = "Safeties cannot be discarded: play Extra Tank instead (a safety can always be played)";
    b.refuse(await b.moveSent("discard extra_tank"), why);
    await bsd.page.locator(".bubble").getByText(why).waitFor();
    assert.equal(await bsd.page.getByRole("dialog").count(), 0, "BSD asks nothing");
    await drag(bsd.page, cardSel("25"), `${TABLE} [data-target="distance:0"] .pile`);
    b.refuse(await b.moveSent("play 25 0"), "You need a Go before you can play distance");
    await bsd.page.locator(".bubble").getByText("You need a Go before you can play distance").waitFor();
    assert.equal(await bsd.page.locator(`${TABLE} .hand-card.refused`).getAttribute("data-card"), "25");
    await screenshot(bsd.page, "mille-refused");
    noErrors(bsd, assert);
  } finally {
    await p.context.close();
    await bsd.context.close();
  }
});

test("four sides at 1000 / 1000: the miles stay on one line, no ? covers a pile, a refusal covers neither the hand's heading nor Sort (scripted server)", async () => {
  const p = await newPlayer(browser);
  const full = ["200", "200", "200", "200", "100", "100"];
  const hand = ["25", "50", "75", "stop", "gasoline", "go", "extra_tank"];
  const four = {
    sides: 4,
    target: 1000,
    status: { phase: "turn", seat: 0, drawn: true },
    legal: ["discard 25", "discard 50", "discard 75", "discard stop", "discard gasoline", "discard go"],
    hand,
    teams: [0, 1, 2, 3].map((t) => side(t, { battle: ["go"], distance: full, safeties: t === 1 ? ["extra_tank", "right_of_way"] : [] })),
  };
  const srv = await scripted(p, four);
  try {
    const { page } = p;
    await srv.open("ann");
    assert.equal(await page.locator(`${TABLE} .side`).count(), 4);
    for (const width of [1280, 1920, 360]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(100);
      const lines = await page.locator(`${TABLE} .miles-total`).evaluateAll((ts) =>
        ts.map((t) => {
          const box = t.getBoundingClientRect();
          const strong = t.querySelector("strong").getBoundingClientRect();
          const room = t.closest(".miles").getBoundingClientRect();
          return { text: t.textContent, oneLine: box.height < strong.height * 1.6, inside: box.right <= room.right + 1 };
        }),
      );
      for (const l of lines) {
        assert.equal(l.text, "1000 / 1000");
        assert.ok(l.oneLine, `"1000 / 1000" is on one line at ${width} px`);
        assert.ok(l.inside, `"1000 / 1000" stays in its box at ${width} px`);
      }
      await helpBadgesClear(page);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.mouse.move(1, 1);
    await page.locator("#tip").waitFor({ state: "hidden" });
    await screenshot(page, "mille-4-players");

    // A refused discard: the reason under the card, nothing covered.
    await drag(page, cardSel("extra_tank"), `${TABLE} [data-target="discard"] .pile`);
    srv.refuse(await srv.moveSent("discard extra_tank"), "A safety cannot be discarded under BSD rules: play it instead");
    await page.locator(".bubble").waitFor();
    await page.mouse.move(1, 1);
    await coversNothing(page);
    await screenshot(page, "mille-4-players-refused");
    await page.setViewportSize({ width: 360, height: 800 });
    await page.waitForTimeout(100);
    await coversNothing(page);
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});

test("tips: the pointer resting on a card or a place, or a long press, shows what it is for (the ? help's words)", async () => {
  const p = await newPlayer(browser);
  try {
    await openTable(p, "tipster");
    const { page } = p;
    const tip = page.locator("#tip");
    // A place: its state and its help.
    await page.locator(`${TABLE} .side.mine .area-battle .pile`).hover();
    await tip.waitFor();
    assert.equal(await tip.getAttribute("role"), "tooltip");
    assert.match(await tip.innerText(), /Battle pile/);
    assert.match(await tip.innerText(), /Its top card says whether the side may drive/);
    await page.mouse.move(1, 1);
    await tip.waitFor({ state: "hidden" });
    // A card: its name and its kind's help.
    const card = page.locator(`${TABLE} .hand-card`).first();
    const name = (await card.getAttribute("aria-label")).replace(/^\d+: /, "");
    await card.hover();
    await tip.waitFor();
    assert.match(await tip.innerText(), new RegExp(name));
    assert.match(await tip.innerText(), /Distance cards|Hazards|Remedies|Safeties/);
    await screenshot(page, "mille-tip", {
      then: async () => {
        await page.mouse.move(1, 1);
        await card.hover();
        await tip.waitFor();
      },
    });
    await page.mouse.move(1, 1);
    await tip.waitFor({ state: "hidden" });
    // Every place and card has one.
    for (const sel of [".area", ".hand-card", ".hand-head", ".statusbar"]) {
      for (const node of await page.locator(`${TABLE} ${sel}`).all()) assert.ok(await node.evaluate((n) => !!n.closest("[data-tip]")), `${sel} has a tip`);
    }
    // A long press with a finger shows the tip and does not select the card.
    const box = await page.locator(`${TABLE} .hand-card`).last().boundingBox();
    const cdp = await p.context.newCDPSession(page);
    const at = { x: box.x + box.width / 2, y: box.y + box.height / 2, id: 1 };
    await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [at] });
    await tip.waitFor();
    await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
    await cdp.detach();
    await page.waitForTimeout(300);
    assert.equal(await page.locator(`${TABLE} .hand-card`).last().getAttribute("aria-pressed"), "false", "a long press is not a click");
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});

test("sounds: off at first, turned on and remembered, one per Mile Bones moment, plain with reduced motion, none when muted (scripted server)", async () => {
  const p = await newPlayer(browser);
  const hand = ["25", "go", "extra_tank", "gasoline", "75", "50"];
  const wait = { status: { phase: "turn", seat: 1, drawn: false }, hand };
  const srv = await scripted(p, wait);
  const { page } = p;
  const body = () => page.evaluate(() => ({ ...document.body.dataset }));
  const counted = (n) => page.waitForFunction((k) => Number(document.body.dataset.soundCount || 0) === k, n);
  try {
    await srv.open("ann");
    const button = page.locator("#sound-button");
    assert.equal(await button.getAttribute("aria-pressed"), "false", "off at first");
    srv.update({ ...wait, events: [{ event: "played", seat: 1, card: "stop", team: 0 }] });
    await srv.announced("BSD played Stop on you.");
    assert.equal((await body()).soundCount, undefined, "no sound while off");

    await button.click();
    assert.equal(await button.getAttribute("aria-pressed"), "true");
    assert.equal(await page.evaluate(() => localStorage.getItem("page-sounds")), "1");
    srv.update({ ...wait, events: [{ event: "played", seat: 1, card: "flat_tire", team: 0 }] });
    await counted(1);
    assert.deepEqual([(await body()).soundLast, (await body()).soundStyle], ["hazard", "plain"], "reduced motion: a plain tone");
    await page.emulateMedia({ reducedMotion: "no-preference" });
    srv.update({ ...wait, events: [{ event: "coup_fourre", seat: 0, safety: "right_of_way", hazard: "stop" }] });
    await counted(2);
    assert.deepEqual([(await body()).soundLast, (await body()).soundStyle], ["coup", "full"]);
    srv.update({ status: { phase: "turn", seat: 0, drawn: false }, legal: ["draw"], hand, events: [{ event: "drew", seat: 1 }, { event: "discarded", seat: 1, card: "25" }] });
    await counted(3);
    assert.equal((await body()).soundLast, "turn", "the viewer's turn");
    srv.update({ ...wait, events: [{ event: "trip_completed", team: 1 }] });
    await counted(4);
    assert.equal((await body()).soundLast, "trip");

    // Remembered; the button mutes.
    await page.reload();
    await page.locator(`${TABLE}[data-obs]`).waitFor();
    assert.equal(await page.locator("#sound-button").getAttribute("aria-pressed"), "true", "remembered");
    await page.locator("#sound-button").click();
    assert.equal(await page.evaluate(() => localStorage.getItem("page-sounds")), "0");
    srv.update({ ...wait, events: [{ event: "played", seat: 1, card: "accident", team: 0 }] });
    await srv.announced("BSD played Accident on you.");
    await moment(page);
    assert.equal((await body()).soundCount, undefined, "muted: no sound");
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});

test("a side's safeties, coups fourrés among them, are named with the words in view, in their order (scripted server)", async () => {
  const p = await newPlayer(browser);
  const mine = side(0, { battle: ["go"], safeties: ["extra_tank", "driving_ace", "right_of_way"], coups: ["extra_tank"] });
  const srv = await scripted(p, { status: { phase: "turn", seat: 1, drawn: false }, hand: ["25", "go", "gasoline", "75", "50", "200"], teams: [mine, side(1, { battle: ["go"] })] });
  try {
    const { page } = p;
    await srv.open("ann");
    const pile = page.locator(`${TABLE} [data-focus="pile-safeties:0"]`);
    assert.equal(await pile.getAttribute("aria-label"), "Your safeties: Extra Tank, Driving Ace, Right of Way; coup fourré: Extra Tank");
    // Each card's words apart ("Driving AceRight of Way" is in no name).
    assert.deepEqual(await seriousViolations(page), [], "the table with three safeties, one a coup fourré");
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});
