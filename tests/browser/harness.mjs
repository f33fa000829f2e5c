// What every browser test needs: a real `mille serve` on a free loopback
// port with its own data directory, Debian's Chromium driven by
// playwright-core, players (one browser context each, with its own
// storage), console errors collected, and screenshots kept as artifacts
// in tests/browser/artifacts/; and network bots (`mille bot --connect`).

import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, existsSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { connect } from "node:net";
import { get as httpsGet } from "node:https";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(here, "../..");
export const ARTIFACTS = join(here, "artifacts");
export const WEB = join(ROOT, "crates", "table-server", "web");

/** The `mille` binary: $MILLE_BIN, else the workspace's debug build
 *  (built once per run if missing or old). */
let built = null;
export function milleBinary() {
  if (process.env.MILLE_BIN) return process.env.MILLE_BIN;
  const bin = join(ROOT, "target", "debug", "mille");
  if (built) return built;
  const made = spawnSync("cargo", ["build", "-q", "--locked", "-p", "mille"], { cwd: ROOT, stdio: "inherit" });
  if (made.status !== 0 && !existsSync(bin)) throw new Error("cargo build -p mille failed");
  built = bin;
  return bin;
}

/** The text at an address: plain HTTP, or HTTPS with any certificate (a
 *  test's own, which nothing trusts). */
function getText(url) {
  if (!url.startsWith("https:")) return fetch(url).then((r) => r.text());
  return new Promise((ok, fail) => {
    httpsGet(url, { rejectUnauthorized: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => ok(text));
    }).on("error", fail);
  });
}

/** Makes a self-signed certificate for 127.0.0.1 and localhost with
 *  openssl, in `dir`; answers {cert, key} (the files' paths). */
export function makeCertificate(dir) {
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  const made = spawnSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-days", "1", "-keyout", key, "-out", cert],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  if (made.status !== 0) throw new Error(`openssl could not make a certificate: ${made.error?.message || made.stderr}`);
  return { cert, key };
}

/** Starts a server. Options: away, handPause, botDelay (seconds/ms as the
 *  server's flags take them), rate, extra args, `data` (a directory the
 *  caller keeps, e.g. to restart a server on it), `listen` (an address,
 *  e.g. a stopped server's), `tls` ({cert, key}: the server speaks HTTPS
 *  and WSS). Answers {url, addr, data, stop(), kill()}.
 *  With $WEB_DIR set, the page is served from that directory. */
export async function startServer({ away = 60, handPause = 3, botDelay = 0, rate = 200, args = [], data, listen = "127.0.0.1:0", tls } = {}) {
  const dir = data || mkdtempSync(join(tmpdir(), "page-test-"));
  const flags = [
    "serve",
    "--listen", listen,
    "--no-socket",
    "--data", dir,
    "--away", String(away),
    "--hand-pause", String(handPause),
    "--bot-delay", String(botDelay),
    "--rate", String(rate),
    ...args,
  ];
  if (tls) flags.push("--tls-cert", tls.cert, "--tls-key", tls.key);
  if (process.env.WEB_DIR) flags.push("--web", process.env.WEB_DIR);
  const child = spawn(milleBinary(), flags, {
    env: { ...process.env, GAMES_DATA_DIR: dir, RUST_LOG: process.env.RUST_LOG || "warn" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  const addr = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error("the server did not start in 20 s")), 20000);
    child.on("exit", (code) => fail(new Error(`the server exited (${code})`)));
    lines.on("line", (line) => {
      const m = /listening on wss?:\/\/([^/\s]+)\/ws/.exec(line);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    });
  });
  const exited = new Promise((ok) => child.on("exit", ok));
  const url = `${tls ? "https" : "http"}://${addr}/`;
  // A server built before the page last changed would test an old page.
  const web = process.env.WEB_DIR || WEB;
  for (const name of readdirSync(web)) {
    const served = await getText(`${url}${name}`);
    if (served !== readFileSync(join(web, name), "utf8")) {
      child.kill("SIGKILL");
      throw new Error(`the server's ${name} is not the tree's: rebuild it (cargo build -p mille) or set WEB_DIR`);
    }
  }
  return {
    url,
    addr,
    data: dir,
    child,
    /** SIGKILL: the server gets no chance to say goodbye. */
    async kill() {
      child.kill("SIGKILL");
      await exited;
    },
    async stop({ keepData = false } = {}) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      if (!keepData && !data) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Debian's Chromium, headless. */
export async function launch() {
  const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
  return chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
}

/** A player: a browser context of its own (its own storage, so its own
 *  name and token) with a page, every console error and page error kept
 *  in `errors`. Options: viewport, reducedMotion, colorScheme,
 *  ignoreHTTPSErrors (for a server with a test's own certificate). */
export async function newPlayer(browser, { viewport = { width: 1280, height: 860 }, reducedMotion = "reduce", colorScheme = "light", ignoreHTTPSErrors = false } = {}) {
  const context = await browser.newContext({ viewport, reducedMotion, colorScheme, ignoreHTTPSErrors });
  const page = await context.newPage();
  const errors = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`page: ${e.message}`));
  return { context, page, errors };
}

/** Opens the page at `url` and plays under `name` (the name form, the
 *  first time in this context). Resolves once connected. */
export async function signIn(player, url, name) {
  const { page } = player;
  await page.goto(url);
  const field = page.locator("#name");
  if (await field.isVisible().catch(() => false)) {
    await field.fill(name);
    await page.getByRole("button", { name: "Play" }).click();
  }
  await page.locator("#conn.open").waitFor();
}

/** Keeps a screenshot of the page as tests/browser/artifacts/NAME.png,
 *  after checking the screen with axe-core: every screen the suite
 *  pictures is a screen it checks, and a serious or critical violation
 *  fails the test (`fullPage: false` keeps only the viewport; `then`, a
 *  step between the check and the picture: a tip the check's scrolling
 *  closed, shown again). */
export async function screenshot(page, name, { fullPage = true, then = null } = {}) {
  const found = await seriousViolations(page);
  if (found.length) throw new Error(`axe-core: serious violations on the screen "${name}": ${JSON.stringify(found, null, 1)}`);
  if (then) await then();
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage });
}

/** Fails with the errors the page logged, if any. */
export function noErrors(player, assert) {
  assert.deepEqual(player.errors, [], "the page logged errors");
}

/** axe-core's rules as the suite runs them: its default set, and
 *  label-in-name (WCAG 2.5.3), which axe still calls experimental. */
async function axe(page) {
  const { AxeBuilder } = await import("@axe-core/playwright");
  return new AxeBuilder({ page }).options({ rules: { "label-content-name-mismatch": { enabled: true } } }).analyze();
}

/** Runs axe-core on the page; answers the serious and critical
 *  violations (id, impact, help, the first nodes' targets). */
export async function seriousViolations(page) {
  const result = await axe(page);
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }));
}

/** Every violation axe-core finds, whatever its impact: ids and targets. */
export async function allViolations(page) {
  const result = await axe(page);
  return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }));
}

/** Signs in and opens a new Mille Bornes table from the lobby: the player
 *  at seat 1, a `classic` computer at seat 2. Answers the table's id once
 *  the table shows its first observation. */
export async function openMilleTable(player, url, name, { rules = "bsd" } = {}) {
  const { page } = player;
  await signIn(player, url, name);
  await page.getByRole("button", { name: "New Mille Bornes table" }).click();
  await page.locator("#rules").selectOption(rules);
  await page.locator("#seat-1").selectOption("computer:classic");
  await page.locator("#create").click();
  await page.locator(".mille[data-obs]").waitFor();
  return Number(/#\/table\/(\d+)/.exec(page.url())[1]);
}

/** Sends `GET path` as written (a browser or fetch would tidy `..` away)
 *  and answers the status code. */
export function rawGet(addr, path) {
  const [host, port] = addr.split(/:(?=\d+$)/);
  return new Promise((ok, fail) => {
    const socket = connect(Number(port), host, () => socket.write(`GET ${path} HTTP/1.1\r\nHost: ${addr}\r\nConnection: close\r\n\r\n`));
    let text = "";
    socket.on("data", (d) => (text += d));
    socket.on("end", () => ok(Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] || 0)));
    socket.on("error", fail);
  });
}

/** Starts `mille bot --connect` as the bot account `name` at `server`
 *  (its token in a directory of its own); resolves once the server lists
 *  it among the bots connected (asked from a page of `browser`). Answers
 *  {stop(), log()}. */
export async function startBot(server, browser, name, { owner = "tester", description = "", level = "random", arena = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "bot-test-"));
  const args = ["bot", "--connect", server.addr, "--name", name, "--level", level, "--owner", owner, "--token-file", join(dir, "token.json")];
  if (description) args.push("--description", description);
  if (arena) args.push("--arena");
  const child = spawn(milleBinary(), args, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, GAMES_DATA_DIR: dir } });
  let log = "";
  child.stderr.on("data", (d) => (log += d));
  const exited = new Promise((ok) => child.on("exit", ok));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + 30000;
    while (!(await botsConnected(server, browser)).includes(name)) {
      if (child.exitCode !== null) throw new Error(`mille bot --connect exited (${child.exitCode}): ${log}`);
      if (Date.now() > deadline) throw new Error(`the bot ${name} never connected: ${log}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } catch (e) {
    await stop();
    throw e;
  }
  return { child, log: () => log, stop };
}

/** The names of the bots connected to `server` now, asked over the
 *  protocol from a page of the server's origin (as the page asks), by
 *  one name per server ("bot-probe"), signed in once. */
const probes = new Map();
export async function botsConnected(server, browser) {
  let page = probes.get(server.url);
  if (!page) {
    const context = await browser.newContext();
    page = await context.newPage();
    await page.goto(`${server.url}icon.svg`);
    await page.evaluate(
      () =>
        new Promise((done, fail) => {
          const ws = new WebSocket(`ws://${location.host}/ws`);
          window.probe = { ws, waiting: [] };
          ws.onopen = () => ws.send(JSON.stringify({ type: "hello", version: 1, name: "bot-probe", client: "bots test" }));
          ws.onerror = () => fail(new Error("bots: the WebSocket failed"));
          ws.onmessage = (e) => {
            const m = JSON.parse(e.data);
            if (m.type === "welcome") done();
            else if (m.type === "error") fail(new Error(m.message));
            else if (m.type === "bots") window.probe.waiting.splice(0).forEach((f) => f(m.bots.map((b) => b.name)));
          };
        }),
    );
    probes.set(server.url, page);
    server.child.on("exit", () => {
      probes.delete(server.url);
      context.close().catch(() => {});
    });
  }
  return page.evaluate(
    () =>
      new Promise((done, fail) => {
        setTimeout(() => fail(new Error("bots: no answer in 10 s")), 10000);
        window.probe.waiting.push(done);
        window.probe.ws.send(JSON.stringify({ type: "bots" }));
      }),
  );
}
