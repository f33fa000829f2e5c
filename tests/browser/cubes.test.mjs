// The cubes table in Chromium: two people play a Blitz game to its end by
// clicking dice and buttons (and somebody watches), the keyboard alone
// plays, a refused move is explained, the accessibility check, and the
// table at 360 px wide and on a 4K screen.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, launch, newPlayer, signIn, screenshot, noErrors, seriousViolations } from "./harness.mjs";

let server;
let browser;

before(async () => {
  server = await startServer({ botDelay: 20 });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** Opens a new cubes table from the lobby: `kind` standard|blitz, the
 *  other seats ("human" or "computer:LEVEL"). Answers the table id. */
async function newCubesTable(page, { kind = "blitz", others = ["computer:steady"] } = {}) {
  await page.locator("#new-cubes").click();
  await page.locator("#kind").selectOption(kind);
  await page.locator("#players").selectOption(String(others.length + 1));
  for (const [k, v] of others.entries()) await page.locator(`#seat-${k + 1}`).selectOption(v);
  await page.locator("#create").click();
  await page.waitForURL(/#\/table\/\d+/);
  await page.locator(".cubes").waitFor();
  return Number(/#\/table\/(\d+)/.exec(page.url())[1]);
}

/** The table's state as the page shows it. */
function state(page) {
  return page.evaluate(() => {
    const c = document.querySelector(".cubes");
    return c ? { phase: c.dataset.phase, turn: c.dataset.turn, busy: c.dataset.busy } : null;
  });
}

/** Waits until this page is to act (answers "act") or the game is over ("over"). */
async function myMove(page, timeout = 20000) {
  const end = Date.now() + timeout;
  for (;;) {
    const s = await state(page);
    if (s?.phase === "Over") return "over";
    if (s?.turn === "mine" && s.busy === "false") return "act";
    if (Date.now() > end) throw new Error(`not this page's move after ${timeout} ms: ${JSON.stringify(s)}`);
    await page.waitForTimeout(30);
  }
}

/** The dice as the page shows them: face, held, picked, whether a button one may press. */
function dice(page) {
  return page.evaluate(() =>
    [1, 2, 3, 4, 5].map((n) => {
      const d = document.getElementById(`die-${n}`);
      return { n, face: d.dataset.face, held: d.classList.contains("held"), picked: d.getAttribute("aria-pressed") === "true", enabled: d.tagName === "BUTTON" && !d.disabled };
    }),
  );
}

/** What "Hold" would bank now (0 when holding is not allowed). */
async function holdValue(page) {
  const hold = page.locator("#cu-hold");
  if (!(await hold.isEnabled())) return 0;
  return Number((await hold.innerText()).replace(/[^0-9]/g, ""));
}

/** One decision of the simple policy with the mouse: roll at the start;
 *  else pick the Ones and Fives, then every scoring die, and hold once the
 *  turn is worth it. Answers what it did. */
async function clickDecision(page) {
  const { phase } = await state(page);
  if (phase === "Start") {
    await page.locator("#cu-roll").click();
    return "roll";
  }
  const before = await dice(page);
  for (const d of before) {
    if (d.enabled && (d.face === "One" || d.face === "Five")) {
      await page.locator(`#die-${d.n}`).click();
      assert.equal(await page.locator(`#die-${d.n}`).getAttribute("aria-pressed"), "true", `die ${d.n} is picked`);
    }
  }
  await page.locator("#cu-all").click();
  const now = await dice(page);
  for (const d of before) if (d.enabled && (d.face === "One" || d.face === "Five")) assert.ok(now[d.n - 1].picked, "every One and Five scores");
  const picked = now.filter((d) => d.picked).length;
  const held = now.filter((d) => d.held).length;
  const left = 5 - held - picked || 5;
  const value = await holdValue(page);
  if (value >= 1000 || (value >= 350 && left <= 2)) {
    await page.locator("#cu-hold").click();
    return "hold";
  }
  await page.locator("#cu-keep").click();
  return "keep";
}

test("two people play a Blitz game to its end with the mouse, somebody watches, and the rankings show them", async () => {
  const ann = await newPlayer(browser);
  const bob = await newPlayer(browser);
  const eve = await newPlayer(browser, { reducedMotion: "no-preference" });
  try {
    await signIn(ann, server.url, "ann");
    const table = await newCubesTable(ann.page, { others: ["human"] });
    await ann.page.getByText("Waiting for 1 more person").waitFor();
    await screenshot(ann.page, "cubes-waiting");

    await signIn(bob, server.url, "bob");
    await bob.page.locator(`#join-${table}`).click();
    await bob.page.locator(".cubes").waitFor();
    await signIn(eve, server.url, "eve");
    await eve.page.locator(`#watch-${table}`).click();
    await eve.page.locator(".cubes").waitFor();
    assert.equal(await eve.page.locator("#cu-roll, #cu-hold, button.cu-die").count(), 0, "a spectator has no controls");
    // The other page's game shows in the panel of games in progress.
    const solo = await newPlayer(browser);
    await signIn(solo, server.url, "solo");
    await newCubesTable(solo.page, { kind: "standard" });
    await ann.page.locator(".cu-others li").filter({ hasText: "solo" }).waitFor({ timeout: 15000 });

    const players = [ann, bob];
    let turns = 0;
    let shots = 0;
    const started = Date.now();
    for (;;) {
      // Whichever page is to act plays one decision.
      let actor = null;
      let over = 0;
      while (!actor && over < 2) {
        over = 0;
        for (const p of players) {
          const s = await state(p.page);
          if (s.phase === "Over") over++;
          else if (s.turn === "mine" && s.busy === "false") actor = p;
        }
        if (!actor && over < 2) await ann.page.waitForTimeout(25);
        assert.ok(Date.now() - started < 100000, "the game ends in time");
      }
      if (!actor) break;
      const did = await clickDecision(actor.page);
      if (did === "roll") turns++;
      assert.ok(turns <= 160, "a Blitz game ends within 160 turns");
      if (did === "roll" && shots < 1 && turns > 4) {
        // A roll may lose the turn at once: then the next one is shown.
        await actor.page.locator('.cubes[data-busy="false"]').waitFor();
        if ((await state(actor.page)).phase === "Rolled") {
          await screenshot(actor.page, "cubes-rolled");
          await screenshot(eve.page, "cubes-spectator");
          shots++;
        }
      }
    }

    // Both players and the spectator see the same winner.
    const said = [];
    for (const p of [ann, bob, eve]) said.push(await p.page.locator(".cu-over h2").innerText());
    const winner = (await eve.page.locator(".cu-scores tr.winner").getAttribute("data-name")) || "";
    assert.match(winner, /^(ann|bob)$/);
    assert.equal(said[2], `${winner} wins!`);
    assert.equal(said[0], winner === "ann" ? "You win!" : "bob wins!");
    assert.equal(said[1], winner === "bob" ? "You win!" : "ann wins!");
    assert.match(await ann.page.locator(".cu-log").innerText(), /wins with/);
    await screenshot(ann.page, "cubes-over");
    await screenshot(eve.page, "cubes-over-spectator");

    // The rankings list both players.
    await ann.page.locator("#cu-see-rankings").click();
    await ann.page.waitForURL(/#\/scores\/cubes/);
    await ann.page.locator("pre.rankings").filter({ hasText: /Blitz games\s+rank/ }).waitFor();
    const ranks = await ann.page.locator("pre.rankings").allInnerTexts();
    assert.ok(ranks.some((t) => /\bann\b/.test(t) && /\bbob\b/.test(t)), ranks.join("\n"));
    await screenshot(ann.page, "cubes-rankings");
    for (const p of [ann, bob, eve, solo]) noErrors(p, assert);
    await solo.context.close();
  } finally {
    await Promise.all([ann, bob, eve].map((p) => p.context.close()));
  }
});

test("the keyboard alone plays: 1-5 pick dice, r rolls, h holds", async () => {
  const kim = await newPlayer(browser);
  const { page } = kim;
  try {
    await signIn(kim, server.url, "kim");
    await newCubesTable(page);
    let held = false;
    let toggled = false;
    let turn = 0;
    for (; turn < 25 && !(held && toggled && turn >= 3); turn++) {
      assert.equal(await myMove(page), "act");
      await page.locator("#main").focus();
      // The turn starts with a roll: r, Space or Enter.
      await page.keyboard.press(["r", "Space", "Enter"][turn % 3]);
      while ((await myMove(page)) === "act") {
        const s = await state(page);
        if (s.phase === "Start") break; // the roll lost the turn and it came back
        const ds = await dice(page);
        // 1-5 toggles a die of this roll.
        const single = ds.filter((d) => d.enabled && (d.face === "One" || d.face === "Five"));
        for (const d of single) {
          await page.keyboard.press(String(d.n));
          assert.equal(await page.locator(`#die-${d.n}`).getAttribute("aria-pressed"), "true");
          if (!toggled) {
            await page.keyboard.press(String(d.n));
            assert.equal(await page.locator(`#die-${d.n}`).getAttribute("aria-pressed"), "false", "the same key unpicks");
            await page.keyboard.press(String(d.n));
            toggled = true;
          }
        }
        // a: every scoring die.
        await page.keyboard.press("a");
        const value = await holdValue(page);
        if (value > 0) {
          const before = Number((await page.locator(".cu-scores tr.me td.num").first().innerText()).replace(/,/g, ""));
          await page.keyboard.press("h");
          // (The computer's turn may be over before a look could see it.)
          await page.locator('.cubes[data-busy="false"]').waitFor();
          const after = Number((await page.locator(".cu-scores tr.me td.num").first().innerText()).replace(/,/g, ""));
          assert.equal(after, before + value, "h banks what the Hold button said");
          held = true;
          break;
        }
        await page.keyboard.press("r");
        await page.locator('.cubes[data-busy="false"]').waitFor();
      }
    }
    assert.ok(held, "the keyboard held a turn");
    assert.ok(toggled, "a digit picked and unpicked a die");
    assert.ok(turn >= 3, "a few turns");
    assert.match(await page.locator(".cu-log").innerText(), /kim rolls/);
    await screenshot(page, "cubes-keyboard");
    noErrors(kim, assert);
  } finally {
    await kim.context.close();
  }
});

/** Plays (keep every scoring die, roll again) until the dice just rolled
 *  show a die that does not score; answers its number. */
async function rollUntilNonScoring(page) {
  for (let i = 0; i < 60; i++) {
    assert.equal(await myMove(page), "act");
    const { phase } = await state(page);
    if (phase === "Start") {
      await page.locator("#cu-roll").click();
      continue;
    }
    await page.locator("#cu-all").click();
    const ds = await dice(page);
    const lone = ds.find((d) => d.enabled && !d.picked);
    if (lone) return lone.n;
    await page.locator("#cu-keep").click();
  }
  throw new Error("no roll with a die that does not score");
}

test("the dice say at once whether they score; a die that scores nothing is not picked, and says why", async () => {
  const ida = await newPlayer(browser);
  const { page } = ida;
  try {
    await signIn(ida, server.url, "ida");
    await newCubesTable(page);
    // Rolls until a die scores nothing: each die just rolled says whether it scores.
    let n = null;
    let some = null;
    for (let tries = 0; tries < 40 && !n; tries++) {
      await rollUntilNonScoring(page);
      for (const d of await dice(page)) {
        if (!d.enabled || d.held) continue;
        const die = page.locator(`#die-${d.n}`);
        const caption = await die.locator(".cu-caption").textContent();
        const label = await die.getAttribute("aria-label");
        if (d.picked) {
          assert.equal(caption, "keep");
          some = d.n;
        } else {
          assert.match(caption, /^(scores|no score)$/, `die ${d.n} says whether it scores`);
          assert.ok(label.endsWith(`, ${caption}`), `die ${d.n}'s name says it too: ${label}`);
          assert.equal(await die.getAttribute("aria-disabled"), caption === "no score" ? "true" : null);
          if (caption === "no score") n = d.n;
        }
      }
      if (!n) await page.locator("#cu-keep").click();
    }
    assert.ok(n && some, "a roll with a die that scores and one that does not");
    // Unpicked, a scoring die says it scores.
    await page.locator(`#die-${some}`).click();
    assert.equal(await page.locator(`#die-${some} .cu-caption`).textContent(), "scores");
    assert.match(await page.locator(`#die-${some}`).getAttribute("aria-label"), /, scores$/);
    await screenshot(page, "cubes-no-score");
    // The press says why at once, and picks nothing.
    // (aria-disabled: Playwright waits for it to be "enabled" unless forced;
    // a person may still press it, to hear why.)
    await page.locator(`#die-${n}`).click({ force: true });
    assert.equal(await page.locator(`#die-${n}`).getAttribute("aria-pressed"), "false");
    await page.locator("#cu-problem").filter({ hasText: /scores nothing in this roll/ }).waitFor();
    assert.match(await page.locator("#alert").innerText(), /scores nothing in this roll/, "and it is announced");
    assert.equal((await state(page)).busy, "false", "no move was sent");
    noErrors(ida, assert);
  } finally {
    await ida.context.close();
  }
});

test("a refused move shows the server's reason", async () => {
  const rex = await newPlayer(browser);
  const { page } = rex;
  try {
    await signIn(rex, server.url, "rex");
    await newCubesTable(page);
    await rollUntilNonScoring(page);
    // Nothing picked: Keep is the server's to refuse, with its sentence.
    for (const d of await dice(page)) if (d.picked) await page.locator(`#die-${d.n}`).click();
    await page.locator("#cu-keep").click();
    const problem = page.locator("#cu-problem");
    await problem.filter({ hasText: "Pick at least one scoring die" }).waitFor();
    assert.match(await page.locator("#alert").innerText(), /Pick at least one scoring die/, "the reason is announced");
    assert.equal((await state(page)).phase, "Rolled", "nothing changed");
    await screenshot(page, "cubes-refused");
    noErrors(rex, assert);
  } finally {
    await rex.context.close();
  }
});

test("the cubes table has no serious accessibility violation", async () => {
  const amy = await newPlayer(browser, { colorScheme: "dark" });
  const { page } = amy;
  const spy = await newPlayer(browser);
  try {
    await signIn(amy, server.url, "amy");
    const table = await newCubesTable(page);
    assert.deepEqual(await seriousViolations(page), [], "the table at the start");
    await rollUntilNonScoring(page);
    await page.locator("#cu-all").click();
    assert.deepEqual(await seriousViolations(page), [], "dice rolled and picked");
    await page.emulateMedia({ colorScheme: "light" });
    assert.deepEqual(await seriousViolations(page), [], "dice rolled and picked, in light colours");
    await screenshot(page, "cubes-light");
    await page.emulateMedia({ colorScheme: "dark" });
    await screenshot(page, "cubes-dark");
    await page.keyboard.press("F1");
    await page.locator("dialog[open]").waitFor();
    assert.match(await page.locator("dialog[open]").innerText(), /small straight/);
    assert.deepEqual(await seriousViolations(page), [], "the help");
    assert.equal(await page.locator("dialog[open]").evaluate((d) => d.scrollTop), 0, "the help opens at its start");
    await screenshot(page, "cubes-help");
    await page.keyboard.press("Escape");

    await signIn(spy, server.url, "spy");
    await spy.page.locator(`#watch-${table}`).click();
    await spy.page.locator(".cubes").waitFor();
    assert.deepEqual(await seriousViolations(spy.page), [], "a spectator's table");
    noErrors(amy, assert);
    noErrors(spy, assert);
  } finally {
    await amy.context.close();
    await spy.context.close();
  }
});

test("the cubes table fits 360 px wide and a 4K screen", async () => {
  const tom = await newPlayer(browser, { viewport: { width: 360, height: 780 } });
  const { page } = tom;
  try {
    await signIn(tom, server.url, "tom");
    await newCubesTable(page);
    await rollUntilNonScoring(page);
    await page.locator("#cu-all").click();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the table is ${overflow} px wider than the screen`);
    await screenshot(page, "cubes-360");
    const box = await page.locator("#die-5").boundingBox();
    assert.ok(box && box.x + box.width <= 360, "the fifth die is on screen");

    await page.setViewportSize({ width: 3840, height: 2160 });
    await screenshot(page, "cubes-4k", { fullPage: false });
    const size = await page.locator("#die-1").boundingBox();
    assert.ok(size.width >= 120, `a die is ${size.width} px wide on a 4K screen`);
    noErrors(tom, assert);
  } finally {
    await tom.context.close();
  }
});

test("dice that score only together say so at once, and Keep waits for all of them; the last roll, faded, keeps its captions legible (scripted server)", async () => {
  // The page's WebSocket answered by the test: a roll of One, three Fours
  // and a Six, with the keeps an engine allows for it.
  const p = await newPlayer(browser);
  const eve = await newPlayer(browser);
  const { page } = p;
  const dice5 = ["One", "Four", "Four", "Four", "Six"];
  const obs = {
    seat: 0,
    settings: { name: "Standard", target: 10000, on_board: 500, off_board: 500, overtime_lead: 250, jokers: "Never" },
    jokers: false,
    players: [{ score: 0, on_board: false, turns: 0 }, { score: 0, on_board: false, turns: 0 }],
    current: 0,
    turn: { dice: dice5, states: Array(5).fill("Rolled"), points: 0, held_points: 0, rolls: 1 },
    phase: "Rolled",
    winner: null,
    viewer: { seat: 0 },
    legal: [{ Keep: 1 }, { Keep: 14 }, { Keep: 15 }],
    hold_value: null,
    events: [{ Rolled: { seat: 0, dice: dice5, rolled: 31 } }],
    seat_info: [{ name: "ann", kind: "human" }, { name: "Steady Sam", kind: "computer", level: "steady" }],
  };
  const sent = [];
  let ws = null;
  await p.context.routeWebSocket(/\/ws$/, (route) => {
    ws = route;
    route.onMessage((text) => {
      const m = JSON.parse(text);
      sent.push(m);
      const reply = (r) => route.send(JSON.stringify(r));
      if (m.type === "hello") {
        reply({ type: "welcome", version: 1, server: "script", name: m.name, token: "0123456789abcdef",
          limits: { max_message_bytes: 65536, messages_per_second: 20, burst: 40, idle_seconds: 120, away_seconds: 60 },
          seats: [{ table: 1, game: "cubes", seat: 0 }], games: [{ game: "cubes", levels: ["steady"] }] });
      } else if (m.type === "join") reply({ type: "joined", table: 1, seat: 0, seq: 9, observation: obs });
      else if (m.type === "list") reply({ type: "tables", tables: [] });
      else if (m.type === "ping") reply({ type: "pong" });
    });
  });
  try {
    await page.goto(`${server.url}#/table/1`);
    await page.locator("#name").fill("ann");
    await page.getByRole("button", { name: "Play" }).click();
    await page.locator('#die-5[data-face="Six"]').waitFor();
    const caption = (n) => page.locator(`#die-${n} .cu-caption`).textContent();
    for (const n of [1, 2, 3, 4]) assert.equal(await caption(n), "scores", `die ${n}`);
    assert.equal(await caption(5), "no score");
    // One Four alone is no keep: the page says which dice it needs, and Keep waits.
    await page.locator("#die-2").click();
    assert.equal(await page.locator("#die-2").getAttribute("aria-pressed"), "true");
    await page.locator("#cu-pick-note").filter({ hasText: "The picked dice score only with dice 3 and 4: pick them too, or unpick." }).waitFor();
    assert.ok(await page.locator("#cu-keep").isDisabled(), "Keep waits for the other Fours");
    await page.locator("#announce p").filter({ hasText: /score only with dice 3 and 4/ }).waitFor({ state: "attached" });
    await screenshot(page, "cubes-partial-keep");
    await page.keyboard.press("3");
    await page.keyboard.press("4");
    assert.equal(await page.locator("#cu-pick-note").textContent(), "");
    assert.ok(await page.locator("#cu-keep").isEnabled());
    assert.equal(await page.locator("#cu-keep").textContent(), "Keep 3 and roll 2");
    // The Six: refused at once, by the key too.
    await page.keyboard.press("5");
    assert.equal(await page.locator("#die-5").getAttribute("aria-pressed"), "false");
    await page.locator("#cu-problem").filter({ hasText: "Die 5, a Six, scores nothing in this roll: it cannot be kept." }).waitFor();
    assert.equal(sent.filter((m) => m.type === "move").length, 0, "no move was sent");

    // The next player's turn: the last roll stays in view, faded, its held
    // dice captioned "held", legible still (checked by the screenshot's axe run).
    const next = { ...obs, current: 1, phase: "Start", legal: [], hold_value: null,
      turn: { dice: dice5, states: Array(5).fill("Idle"), points: 0, held_points: 0, rolls: 0 },
      events: [{ Rolled: { seat: 0, dice: dice5, rolled: 3 } }, { Bust: { seat: 0, lost: 0 } }, { TurnStarted: { seat: 1 } }] };
    ws.send(JSON.stringify({ type: "update", table: 1, seq: 10, observation: next }));
    await page.locator(".cu-dice.past").waitFor();
    assert.equal(await caption(3), "held");
    await screenshot(page, "cubes-last-roll");

    // A spectator's dice are not buttons (a disabled button's text is not
    // held to a contrast): its view of the same is checked too.
    await eve.context.routeWebSocket(/\/ws$/, (route) => {
      route.onMessage((text) => {
        const m = JSON.parse(text);
        const reply = (r) => route.send(JSON.stringify(r));
        if (m.type === "hello") {
          reply({ type: "welcome", version: 1, server: "script", name: m.name, token: "0123456789abcdef",
            limits: { max_message_bytes: 65536, messages_per_second: 20, burst: 40, idle_seconds: 120, away_seconds: 60 },
            seats: [], games: [{ game: "cubes", levels: ["steady"] }] });
        } else if (m.type === "watch") {
          reply({ type: "watching", table: 1, seq: 9, observation: { ...obs, viewer: "spectator", legal: [] } });
          setTimeout(() => reply({ type: "update", table: 1, seq: 10, observation: { ...next, viewer: "spectator" } }), 50);
        } else if (m.type === "list") reply({ type: "tables", tables: [] });
        else if (m.type === "ping") reply({ type: "pong" });
      });
    });
    await eve.page.goto(`${server.url}#/table/1?watch`);
    await eve.page.locator("#name").fill("eve");
    await eve.page.getByRole("button", { name: "Play" }).click();
    await eve.page.locator(".cu-dice.past").waitFor();
    assert.equal(await eve.page.locator("#die-3 .cu-caption").textContent(), "held");
    await screenshot(eve.page, "cubes-last-roll-spectator");
    noErrors(p, assert);
    noErrors(eve, assert);
  } finally {
    await p.context.close();
    await eve.context.close();
  }
});
