// A name's key on the page, against a real server: signing out (the key
// revoked on the server and forgotten here, another tab of the browser
// back at the name form) and replacing the key (the new one kept, a
// reload signing in with it, the old one refused). And the page prints
// what a server sends as text, never as HTML: names, tables, messages
// and rankings carrying markup are shown as written.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, launch, newPlayer, signIn, screenshot, noErrors, openMilleTable } from "./harness.mjs";

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

/** The key this browser keeps for `name` (undefined: none). */
function storedToken(page, name) {
  return page.evaluate((n) => JSON.parse(localStorage.getItem("table-identity") || "{}").tokens?.[n], name);
}

/** Says `hello` from a page of the server's origin on a WebSocket of its
 *  own and answers the server's first answer. */
function hello(page, name, token) {
  return page.evaluate(
    ([n, t]) =>
      new Promise((ok, fail) => {
        const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
        ws.onopen = () => ws.send(JSON.stringify({ type: "hello", version: 1, name: n, client: "test", ...(t ? { token: t } : {}) }));
        ws.onmessage = (e) => {
          ws.close();
          ok(JSON.parse(e.data));
        };
        ws.onerror = () => fail(new Error("the WebSocket failed"));
      }),
    [name, token],
  );
}

test("signing out revokes the key, forgets it and asks for a name, in every tab", async () => {
  const p = await newPlayer(browser);
  const probe = await newPlayer(browser);
  try {
    const { page } = p;
    await signIn(p, server.url, "leaver");
    const old = await storedToken(page, "leaver");
    assert.ok(old, "the browser keeps the name's key");
    // A second tab of the same browser, signed in with the same key.
    const tab = await p.context.newPage();
    await tab.goto(server.url);
    await tab.locator("#conn.open").waitFor();
    await tab.locator("#who strong", { hasText: "leaver" }).waitFor();

    // The control is in the header, by the name, and the keyboard reaches it.
    await page.locator("#sign-out").focus();
    await page.keyboard.press("Enter");
    const dlg = page.locator("dialog[open]");
    await dlg.waitFor();
    const text = await dlg.innerText();
    assert.match(text, /stays reserved/);
    assert.match(text, /nobody can play under it again, not even you/);
    assert.match(text, /becomes free/);
    await screenshot(page, "account-sign-out", { fullPage: false });
    // The safe choice is the focused one.
    assert.equal(await page.evaluate(() => document.activeElement.textContent), "Stay signed in");
    await dlg.getByRole("button", { name: "Sign out" }).click();

    await page.locator("#name").waitFor();
    await page.getByText('You are signed out of "leaver".').waitFor();
    assert.equal(await storedToken(page, "leaver"), undefined, "the key is forgotten");
    assert.equal(await page.evaluate(() => JSON.parse(localStorage.getItem("table-identity")).last), "");
    assert.equal(await page.locator("#who").innerText(), "");
    // The other tab lost its connection and does not take the name again without the key.
    await tab.locator("#name").waitFor();
    assert.equal(await storedToken(tab, "leaver"), undefined);

    // The old key signs in nowhere; the name had no game, so it is free.
    await probe.page.goto(server.url);
    const refused = await hello(probe.page, "leaver", old);
    assert.equal(refused.type, "error");
    assert.equal(refused.code, "bad_token");
    const taken = await hello(probe.page, "leaver");
    assert.equal(taken.type, "welcome", "a name without games is free after its sign-out");
    noErrors(p, assert);
  } finally {
    await p.context.close();
    await probe.context.close();
  }
});

test("a name with a game stays reserved after signing out", async () => {
  const p = await newPlayer(browser);
  const probe = await newPlayer(browser);
  try {
    const { page } = p;
    await openMilleTable(p, server.url, "seated");
    const old = await storedToken(page, "seated");
    await page.locator("#sign-out").click();
    await page.locator("dialog[open]").getByRole("button", { name: "Sign out" }).click();
    await page.locator("#name").waitFor();
    assert.equal(await storedToken(page, "seated"), undefined);
    await probe.page.goto(server.url);
    assert.equal((await hello(probe.page, "seated", old)).code, "bad_token");
    assert.equal((await hello(probe.page, "seated")).code, "name_taken", "nobody plays under a name with a game after its sign-out");
    noErrors(p, assert);
  } finally {
    await p.context.close();
    await probe.context.close();
  }
});

test("a new key replaces the old one, and a reload signs in with it", async () => {
  const p = await newPlayer(browser);
  const probe = await newPlayer(browser);
  try {
    const { page } = p;
    await signIn(p, server.url, "rekeyed");
    const old = await storedToken(page, "rekeyed");
    // A second tab of the browser: the server closes its connection when
    // the key is replaced, and it comes back with the new key.
    const tab = await p.context.newPage();
    await tab.goto(server.url);
    await tab.locator("#who strong", { hasText: "rekeyed" }).waitFor();
    await page.locator("#new-token").focus();
    await page.keyboard.press("Enter");
    const dlg = page.locator("dialog[open]");
    await dlg.waitFor();
    await screenshot(page, "account-new-key", { fullPage: false });
    await dlg.getByRole("button", { name: "Replace the key" }).click();
    await page.waitForFunction((o) => {
      const t = JSON.parse(localStorage.getItem("table-identity") || "{}").tokens?.rekeyed;
      return t && t !== o;
    }, old);
    const fresh = await storedToken(page, "rekeyed");
    await page.waitForFunction(() => [...document.querySelectorAll("#announce p")].some((p) => /key is replaced/.test(p.textContent)));

    await tab.waitForFunction(() => document.body.dataset.conn !== "open");
    await tab.locator("#conn.open").waitFor();
    await tab.locator("#who strong", { hasText: "rekeyed" }).waitFor();
    assert.equal(await storedToken(tab, "rekeyed"), fresh, "the other tab kept the new key");
    await tab.close();

    await page.reload();
    await page.locator("#conn.open").waitFor();
    await page.locator("#who strong", { hasText: "rekeyed" }).waitFor();
    assert.equal(await storedToken(page, "rekeyed"), fresh, "the reload signed in with the new key");

    await probe.page.goto(server.url);
    assert.equal((await hello(probe.page, "rekeyed", old)).code, "bad_token", "the old key is revoked");
    noErrors(p, assert);
  } finally {
    await p.context.close();
    await probe.context.close();
  }
});

const EVIL = `<img src=x onerror="document.body.dataset.owned='yes'"><b>bold</b>`;

/** Whether anything the server said became markup. */
async function unharmed(page) {
  return page.evaluate(() => !document.querySelector("img, b") && document.body.dataset.owned !== "yes");
}

test("what a server sends is shown as text, never as HTML", async () => {
  const p = await newPlayer(browser);
  try {
    const { page } = p;
    // Between the page and the real server, every name, rankings text and
    // message the server sends carries markup.
    await page.routeWebSocket(/\/ws$/, (ws) => {
      const real = ws.connectToServer();
      ws.onMessage((m) => real.send(m));
      real.onMessage((m) => {
        let msg;
        try {
          msg = JSON.parse(m);
        } catch {
          ws.send(m);
          return;
        }
        if (msg.type === "tables") {
          for (const t of msg.tables) {
            t.ruleset = `${EVIL} ${t.ruleset}`;
            for (const s of t.seats || []) {
              if (typeof s.player === "string" && s.player !== "marked") s.player = `${EVIL} ${s.player}`;
              if (typeof s.level === "string") s.level = `${EVIL} ${s.level}`;
            }
          }
        }
        if (msg.type === "rankings") msg.text = `${EVIL}\n${msg.text}`;
        if (msg.type === "error") msg.message = `${EVIL} ${msg.message}`;
        ws.send(JSON.stringify(msg));
        if (msg.type === "welcome") ws.send(JSON.stringify({ type: "error", code: "unavailable", message: `${EVIL} a notice` }));
      });
    });
    await openMilleTable(p, server.url, "marked");
    await page.waitForFunction(() => [...document.querySelectorAll("#alert p, #alert")].some((n) => n.textContent.includes("<img src=x")));
    assert.ok(await unharmed(page), "the message stayed text");

    await page.locator("#leave").click();
    await page.locator("dialog[open]").getByRole("button", { name: "Leave the table" }).click();
    await page.locator(".seats li", { hasText: "<b>bold</b>" }).first().waitFor();
    await page.locator("td", { hasText: "<b>bold</b> bsd" }).first().waitFor();
    assert.ok(await unharmed(page), "the lobby's names stayed text");

    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Scores" }).click();
    await page.getByRole("link", { name: "cubes rankings" }).click();
    await page.locator("pre.rankings").first().waitFor();
    assert.match(await page.locator("pre.rankings").first().innerText(), /<img src=x onerror=/);
    assert.ok(await unharmed(page), "the rankings stayed text");
  } finally {
    await p.context.close();
  }
});
