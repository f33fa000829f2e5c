// The page's frame in Chromium: what the server sends, the name and its
// token, the lobby, a private table opened by its invitation link, and the
// accessibility check of the lobby.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, launch, newPlayer, signIn, screenshot, noErrors, seriousViolations, allViolations, rawGet, WEB } from "./harness.mjs";

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

test("the server sends the page, with its security headers, and nothing else", async () => {
  const page = await fetch(server.url);
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-type"), /text\/html/);
  assert.match(page.headers.get("content-security-policy"), /default-src 'self'/);
  const html = await page.text();
  assert.match(html, /<script type="module" src="app.js">/);
  const again = await fetch(server.url, { headers: { "if-none-match": page.headers.get("etag") } });
  assert.equal(again.status, 304, "an unchanged file is not sent twice");
  for (const name of ["app.js", "net.js", "lobby.js", "mille.js", "cubes.js", "cards.js", "base.css"]) {
    const r = await fetch(new URL(name, server.url));
    assert.equal(r.status, 200, name);
  }
  assert.equal((await fetch(new URL("Cargo.toml", server.url))).status, 404);
  for (const path of ["/../Cargo.toml", "/%2e%2e/Cargo.toml", "/..%2fCargo.toml", "/.hidden.js"]) {
    assert.equal(await rawGet(server.addr, path), 404, path);
  }
  const health = await (await fetch(new URL("health", server.url))).json();
  assert.equal(health.status, "ok");
});

test("a newcomer names herself, opens a private table and a friend joins it by its link", async () => {
  const ann = await newPlayer(browser);
  const bob = await newPlayer(browser);
  const eve = await newPlayer(browser);
  try {
    await ann.page.goto(server.url);
    await ann.page.locator("#name").waitFor();
    await screenshot(ann.page, "name-form");
    // A name the server would refuse is explained before it is sent.
    await ann.page.locator("#name").fill("ann!");
    await ann.page.getByRole("button", { name: "Play" }).click();
    await ann.page.getByText("only letters, digits").waitFor();
    await ann.page.locator("#name").fill("ann");
    await ann.page.getByRole("button", { name: "Play" }).click();
    await ann.page.locator("#conn.open").waitFor();
    await ann.page.getByText("No Mille Bornes table yet").waitFor();
    assert.deepEqual(await seriousViolations(ann.page), [], "the empty lobby");
    await screenshot(ann.page, "lobby-empty");

    // A private bsd table for two people.
    await ann.page.getByRole("button", { name: "New Mille Bornes table" }).click();
    await ann.page.locator("#seat-1").selectOption("human");
    await ann.page.locator("#private").check();
    assert.deepEqual(await seriousViolations(ann.page), [], "the new-table form");
    await screenshot(ann.page, "lobby-new-table");
    await ann.page.locator("#create").click();
    await ann.page.waitForURL(/#\/table\/\d+\?code=/);
    const link = ann.page.url();
    assert.match(await ann.page.locator(".table-bar h1").innerText(), /Table \d+: Mille Bornes/);

    // Somebody else does not see it in the lobby.
    await signIn(eve, server.url, "eve");
    await eve.page.getByText("No Mille Bornes table yet").waitFor();

    // The friend opens the link, names himself, and sits.
    await bob.page.goto(link);
    await bob.page.locator("#name").fill("bob");
    await bob.page.getByRole("button", { name: "Play" }).click();
    await bob.page.locator(".table-bar h1").waitFor();
    assert.equal(await bob.page.locator(".table-bar .badge", { hasText: "watching" }).count(), 0, "bob sits, he does not watch");

    // Without the code, the table does not open.
    const table = /#\/table\/(\d+)/.exec(link)[1];
    await eve.page.goto(`${server.url}#/table/${table}`);
    await eve.page.getByRole("alert").filter({ hasText: /table/ }).waitFor();

    // The same name in another browser is refused: its token is elsewhere.
    const thief = await newPlayer(browser);
    await thief.page.goto(server.url);
    await thief.page.locator("#name").fill("ann");
    await thief.page.getByRole("button", { name: "Play" }).click();
    await thief.page.getByText("the name ann is taken").waitFor();
    await thief.context.close();

    // Leaving a game that is on asks first; back in the lobby, ann's seat
    // is offered back to her.
    await ann.page.goto(`${server.url}#/`);
    await ann.page.getByRole("dialog").getByText("The seat stays yours").waitFor();
    await ann.page.getByRole("button", { name: "Stay" }).click();
    assert.match(ann.page.url(), /#\/table\/\d+\?code=/, "staying keeps the table's address");
    await ann.page.locator("#leave").click();
    await ann.page.getByRole("button", { name: "Leave the table" }).click();
    await ann.page.getByRole("button", { name: /Back to/ }).first().waitFor();
    await screenshot(ann.page, "lobby-with-table");
    // Not even a minor violation: every column of the tables has a header.
    assert.deepEqual((await allViolations(ann.page)).filter((v) => v.id === "empty-table-header"), [], "the tables' headers");
    for (const p of [ann, bob, eve]) noErrors(p, assert);
  } finally {
    await Promise.all([ann, bob, eve].map((p) => p.context.close()));
  }
});

test("a name of 31 characters is taken, as Mile Bones takes them; a 32nd is refused before it is sent", async () => {
  const p = await newPlayer(browser);
  try {
    await p.page.goto(server.url);
    const field = p.page.locator("#name");
    assert.equal(await field.getAttribute("maxlength"), "31");
    // The field takes no 32nd character; a value set around it is refused
    // by the page before anything is sent.
    await field.fill("x".repeat(32));
    assert.equal((await field.inputValue()).length, 31);
    await field.evaluate((f) => (f.value = "y".repeat(32)));
    await p.page.getByRole("button", { name: "Play" }).click();
    await p.page.getByText("A name has at most 31 characters.").waitFor();
    const name = "Marguerite-Antoinette de Valois";
    assert.equal(name.length, 31);
    await field.fill(name);
    await p.page.getByRole("button", { name: "Play" }).click();
    // The server has the last word on names: a refusal is shown in the form.
    await p.page
      .locator("#who strong")
      .getByText(name, { exact: true })
      .waitFor({ timeout: 15000 })
      .catch(async () => assert.fail(`the 31-character name is refused: ${await p.page.locator("#name-problem").textContent().catch(() => "")}`));
    await p.page.locator("#conn.open").waitFor();
    await screenshot(p.page, "lobby-long-name");
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});

test("the page is legible at 360 px wide", async () => {
  const p = await newPlayer(browser, { viewport: { width: 360, height: 740 } });
  try {
    await signIn(p, server.url, "narrow");
    const overflow = await p.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the lobby is ${overflow} px wider than the screen`);
    await screenshot(p.page, "lobby-360");
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});

test("a server serving the page from a directory serves that directory's page files and nothing else", async () => {
  const dev = await startServer({ args: process.env.WEB_DIR ? [] : ["--web", WEB] });
  try {
    assert.equal((await fetch(new URL("lobby.js", dev.url))).status, 200);
    for (const path of ["/../Cargo.toml", "/%2e%2e/src/web.rs", "/..%2f..%2fCargo.toml", "/.hidden.js", "/web.rs"]) {
      assert.equal(await rawGet(dev.addr, path), 404, path);
    }
  } finally {
    await dev.stop();
  }
});

test("two tabs of one browser keep both names' tokens", async () => {
  const p = await newPlayer(browser);
  try {
    const first = p.page;
    const second = await p.context.newPage();
    await first.goto(server.url);
    await second.goto(server.url);
    await first.locator("#name").fill("tab-one");
    await first.getByRole("button", { name: "Play" }).click();
    await first.locator("#conn.open").waitFor();
    // The second tab, opened before, plays under another name.
    await second.locator("#name").fill("tab-two");
    await second.getByRole("button", { name: "Play" }).click();
    await second.locator("#conn.open").waitFor();
    const tokens = await first.evaluate(() => Object.keys(JSON.parse(localStorage.getItem("table-identity")).tokens).sort());
    assert.deepEqual(tokens, ["tab-one", "tab-two"]);
    // Either name comes back with its token: the first tab, reloaded on
    // its name form, takes tab-one again.
    await first.goto(`${server.url}#/name`);
    await first.locator("#name").fill("tab-one");
    await first.getByRole("button", { name: "Play" }).click();
    await first.locator("#conn.open").waitFor();
    await first.getByText("Playing as").waitFor();
    assert.equal(await first.locator("#who strong").innerText(), "tab-one");
    noErrors(p, assert);
  } finally {
    await p.context.close();
  }
});

