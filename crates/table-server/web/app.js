// The page: the name, the connection's state in the header, and the route
// (the lobby, a table, the scores) kept in the address's `#`, so that a
// shared link opens a table and a reload comes back to it.
//
// A table screen is a module (mille.js, cubes.js) exporting
// `mount(root, ctx)` that answers a view:
//   view.show(msg)        a `joined`, `watching` or `update` for the table
//                         (msg.observation; msg.seats in updates)
//   view.refused(error)   an `error` about the table (error.id: one of its moves)
//   view.acked(ack)       an `ack` of one of its moves
//   view.key(event)       a key typed outside text fields; true if used
//   view.help()           F1: help about the screen
//   view.destroy()
// ctx: {client, table, seat (null for a spectator), code, name, summary
// (the lobby's line for the table, or null), move(action) -> id, ready(),
// leave() (asks first when a game is on), shared() (whether more than one
// person has a seat here), announce(text, {assertive})}.
//
// Above the view, a line says who left the table and when a computer
// plays for them, from the seats' `connected`, `stand_in_in` and `away`.

import { Client, loadIdentity, nameProblem } from "./net.js";
import { Lobby } from "./lobby.js";
import { el, announce, dialog, typing, rankingNodes, sounds, leavingHelp } from "./ui.js";

const main = document.getElementById("main");
const connLine = document.getElementById("conn");
const who = document.getElementById("who");

const client = new Client();
let lobby = null;
let current = null; // {table, view, game, seat, over, hash, seats, rated, presence}
let route = null;
/** Counts navigations: a table still opening when another screen was
 *  asked for gives up. */
let navigation = 0;
/** Set by the table's own "leave" (which asked already). */
let leaving = false;
/** How the tables this name had left ended meanwhile (`ended`), shown in
 *  the lobby until dismissed. */
let endings = [];

/** The route in the address: {page: "lobby"|"table"|"scores"|"name", table, code, watch}. */
function parseRoute() {
  const h = location.hash.replace(/^#\/?/, "");
  const [path, query = ""] = h.split("?");
  const q = new URLSearchParams(query);
  const parts = path.split("/").filter(Boolean);
  if (parts[0] === "table" && /^\d+$/.test(parts[1] || "")) {
    return { page: "table", table: Number(parts[1]), code: q.get("code") || undefined, watch: q.has("watch") };
  }
  if (parts[0] === "scores") return { page: "scores", game: parts[1] === "cubes" ? "cubes" : "mille" };
  if (parts[0] === "name") return { page: "name" };
  return { page: "lobby" };
}

/** The address of a table, for links (with a private table's code). */
export function tableLink(table, code) {
  const base = `${location.origin}${location.pathname}`;
  return `${base}#/table/${table}${code ? `?code=${encodeURIComponent(code)}` : ""}`;
}

let shownState = "";

function showState({ state, attempt, heldFor, seated }) {
  const words = { open: "connected", connecting: "connecting…", reconnecting: "reconnecting", closed: "not connected", idle: "" };
  // The status region says the state when it changes; the attempts and
  // the countdown, rewritten every second, are not read out.
  let detail = "";
  if (state === "reconnecting") {
    detail = ` (attempt ${attempt})`;
    if (seated && client.welcome) detail += heldFor > 0 ? `: your seat is held for ${heldFor} s` : ": a computer plays your seat until you are back";
  }
  if (state !== shownState) {
    connLine.replaceChildren(el("span", {}, words[state] ?? state), el("span", { "aria-hidden": "true", class: "conn-detail" }, detail));
    if (state === "reconnecting" && seated && client.welcome) {
      announce(`The connection is lost; reconnecting. Your seat is held for ${heldFor} seconds.`, { assertive: true });
    }
    shownState = state;
  } else {
    connLine.querySelector(".conn-detail")?.replaceChildren(detail);
  }
  connLine.className = `conn ${state}`;
  document.body.dataset.conn = state;
}

client.on("state", showState);

client.on("identity", async (err) => {
  if (err.code === "bad_token") {
    // A key replaced meanwhile by another tab of this browser: sign in
    // with the new one.
    if (client.sentToken && loadIdentity().tokens[client.name] !== client.sentToken) {
      client.start(client.name);
      return;
    }
    // This server does not know the token any more (its database was
    // reset): the name may be free again.
    client.forget(client.name);
    const name = client.name;
    client.attempt = 0;
    // Not a sign-out elsewhere: the hello without a key is meant.
    client.welcome = null;
    client.start(name);
    return;
  }
  if (err.code === "signed_out") who.replaceChildren();
  askName(err.message);
});

client.on("welcome", (w) => {
  who.replaceChildren(
    el("span", {}, "Playing as "),
    el("strong", {}, w.name),
    " ",
    el("a", { href: "#/name", class: "small" }, "change"),
    " ",
    el("button", { type: "button", id: "new-token", onclick: replaceToken }, "New key"),
    " ",
    el("button", { type: "button", id: "sign-out", onclick: signOut }, "Sign out"),
  );
  if (w.reconnected && current) announce("Connected again.");
  else go();
});

for (const type of ["joined", "watching", "update"]) {
  client.on(type, (msg) => {
    if (current && msg.table === current.table) {
      current.over = gameOver(msg.observation);
      if (msg.seats) current.seats = msg.seats;
      if (current.view) {
        current.view.show(msg);
        current.presence?.show(current.seats, current.over);
      } else current.waiting?.push(msg);
    }
    if (type === "update" && msg.seats && lobby) lobby.seatsChanged(msg.table, msg.seats);
  });
}
client.on("ack", (msg) => {
  if (current && msg.table === current.table) current.view?.acked(msg);
});
client.on("error", (msg) => {
  if (current && msg.table === current.table && msg.id === undefined && ["no_such_table", "game_over"].includes(msg.code)) {
    // The table ended or closed while this page was away from it.
    const gone = current.table;
    closeTable({ keep: true });
    tableGone(`Table ${gone} is not there any more: ${msg.message}.`);
  } else if (current && msg.table === current.table) current.view?.refused(msg);
  else if (msg.id === undefined && msg.table === undefined && !["rate_limited"].includes(msg.code) && client.welcome) {
    announce(msg.message, { assertive: true });
  }
});
client.on("tables", (msg) => lobby?.tables(msg.tables));
client.on("declined", (msg) => {
  // An invited bot said no: its seat is free again (the next update says
  // so too; until then the seat is shown free here).
  const text = `${msg.bot} declined${msg.reason ? `: ${msg.reason}` : "."}`;
  if (current && msg.table === current.table) {
    const seats = current.seats?.map((s, i) => (i === msg.seat ? { ...s, player: null, bot: false, invited: false, connected: false } : s));
    if (seats) {
      current.seats = seats;
      current.view?.show({ type: "update", table: msg.table, seats });
    }
    // Kept for a table still opening: its line above the board comes after.
    current.declined = [...(current.declined || []), text];
    current.presence?.declined(text);
    current.presence?.show(current.seats, current.over);
    announce(`${text} Seat ${msg.seat + 1} is free.`);
  } else announce(`Table ${msg.table}: ${text}`);
});
client.on("ended", (msg) => {
  const fresh = (msg.tables || []).filter((t) => !endings.some((e) => e.table === t.table));
  if (!fresh.length) return;
  endings = [...endings, ...fresh];
  lobby?.showEndings();
});

/** Shows the screen the address names. */
async function go() {
  // "#main" and the like are places in the page, not routes.
  if (location.hash && !location.hash.startsWith("#/")) return;
  const next = parseRoute();
  if (current && !(next.page === "table" && next.table === current.table) && !(await mayLeave())) {
    // Stay: the address goes back to the table's.
    history.replaceState(null, "", current.hash);
    return;
  }
  route = next;
  navigation += 1;
  lobby?.destroy();
  lobby = null;
  if (route.page === "name") return askName("");
  if (!client.online) return;
  if (route.page === "table") {
    if (current?.table === route.table) return;
    await openTable(route);
    return;
  }
  closeTable();
  if (route.page === "scores") return showScores(route.game);
  showLobby();
}

/** Whether the game is over in this observation (either game's). */
function gameOver(obs) {
  return obs?.status?.phase === "game_over" || obs?.phase === "Over";
}

/** Leaving a seat while its game is on lets a computer play it after a
 *  while: ask first (unless the table's own "leave" asked already). */
async function mayLeave() {
  if (leaving) {
    leaving = false;
    return true;
  }
  return confirmLeave();
}

/** Whether every person's seat of these seats is taken (the game is on,
 *  unless it is over), an invited bot's once it came; unknown seats
 *  count as taken. */
function started(seats) {
  return !seats || seats.every((s) => s.kind !== "human" || (s.player && !s.invited));
}

/** Asks a player whether to leave a game in progress, saying what the
 *  server does then: at a shared table a computer plays for the absent
 *  player after the away time, and not being back at the end abandons the
 *  game; alone with computers, the game waits. Answers true to leave. */
async function confirmLeave() {
  if (!current || current.seat === null || current.over) return true;
  const away = client.welcome?.limits?.away_seconds ?? 60;
  const seats = current.seats || [];
  const others = seats.filter((s, i) => s.kind === "human" && i !== current.seat);
  const body = [el("p", {}, "The seat stays yours: come back to it from the tables.")];
  if (!others.length) {
    body.push(el("p", {}, "Nobody else plays at this table: the game is paused until you are back."));
  } else if (!started(seats)) {
    body.push(el("p", {}, "The game begins when every seat is taken; if you are not back by then, a computer plays for you after a while."));
  } else {
    const here = others.some((s) => s.connected);
    body.push(
      el(
        "p",
        {},
        here
          ? `The others see that you left, and after ${away} seconds a computer plays for you until you are back.`
          : `Nobody else is at the table now: the game is paused until somebody comes back; then, after ${away} seconds, a computer plays for you.`,
      ),
      el(
        "p",
        { class: "warning" },
        `If you are not back at the table when the game ends, you have abandoned it: it ${current.rated ? "counts as a loss in the ratings and " : ""}enters no high-score table.`,
      ),
    );
  }
  const choice = await dialog({
    title: "Leave the table?",
    body,
    buttons: [
      { label: "Leave the table", value: true },
      { label: "Stay", value: false, primary: true },
    ],
  });
  return choice === true;
}

/** The line above a table that says who left it: "NAME left: a computer
 *  plays for NAME in 45 s" (counted down here from the seat's
 *  `stand_in_in`, set again by every update), "a computer plays for NAME"
 *  once it does, and to a spectator "paused: nobody is at the table".
 *  Screen readers hear each change once, not every second. */
class Presence {
  constructor(me) {
    this.me = me;
    this.box = el("div", { class: "presence", id: "presence", hidden: true });
    this.deadlines = new Map(); // seat -> Date.now() when a computer takes it
    this.states = null; // seat -> "here" | "counting" | "away" | "gone"; "paused"
    this.timer = null;
  }

  /** The seats of a summary or an update, and whether the game is over. */
  show(seats, over) {
    if (!seats) return;
    this.seats = seats;
    this.over = over;
    const now = Date.now();
    this.deadlines.clear();
    seats.forEach((s, i) => {
      if (typeof s.stand_in_in === "number" && !s.away) this.deadlines.set(i, now + s.stand_in_in * 1000);
    });
    const on = !over && started(seats);
    // A bot invited and not yet come is waited for, not "gone".
    this.invited = seats.map((s, i) => [s, i]).filter(([s]) => s.invited && s.player);
    const people = seats.map((s, i) => [s, i]).filter(([s]) => s.kind === "human" && s.player && !s.invited);
    const states = new Map();
    for (const [s, i] of people) {
      if (i === this.me) continue;
      states.set(i, s.connected ? "here" : s.away ? "away" : this.deadlines.has(i) ? "counting" : "gone");
    }
    const paused = on && people.length > 0 && people.every(([s]) => !s.connected);
    // Changes since the last seats, said once (not on the first seats:
    // the line itself is there to be read).
    if (this.states && on) {
      const said = [];
      for (const [i, st] of states) {
        const was = this.states.get(i);
        if (st === was) continue;
        const name = seats[i].player;
        if (st === "counting") said.push(`${name} left: a computer plays for ${name} in ${this.secondsLeft(i)} seconds.`);
        else if (st === "away") said.push(`A computer plays for ${name} now.`);
        else if (st === "gone" && was === "here") said.push(`${name} left.`);
        else if (st === "here" && was && was !== "here") said.push(`${name} is back.`);
      }
      if (paused && !this.paused) said.push("The game is paused: nobody is at the table.");
      if (said.length) announce(said.join(" "));
    }
    this.states = states;
    this.paused = paused;
    this.on = on;
    this.render();
    clearInterval(this.timer);
    this.timer = this.deadlines.size && on ? setInterval(() => this.render(), 1000) : null;
  }

  /** An invited bot declined: said above the table until the game starts. */
  declined(text) {
    this.notes = [...(this.notes || []), text];
    this.render();
  }

  secondsLeft(seat) {
    return Math.max(0, Math.ceil((this.deadlines.get(seat) - Date.now()) / 1000));
  }

  render() {
    const lines = [];
    if (!this.on) {
      for (const text of this.notes || []) lines.push(el("p", { class: "declined" }, text));
      for (const [s, i] of this.invited || []) lines.push(el("p", { "data-seat": i }, `${s.player} (a bot) is invited to seat ${i + 1}: the game starts when it comes.`));
    }
    if (this.on && this.paused) lines.push(el("p", { class: "paused" }, "Paused: nobody is at the table."));
    else if (this.on) {
      for (const [i, st] of this.states) {
        const name = this.seats[i].player;
        if (st === "counting") {
          const n = this.secondsLeft(i);
          lines.push(el("p", { "data-seat": i }, `${name} left: a computer plays for ${name} ${n > 0 ? `in ${n} s` : "in a moment"}.`));
        } else if (st === "away") lines.push(el("p", { "data-seat": i }, `${name} left: a computer plays for ${name}.`));
        else if (st === "gone") lines.push(el("p", { "data-seat": i }, `${name} left.`));
      }
    }
    this.box.replaceChildren(...lines);
    this.box.hidden = !lines.length;
  }

  destroy() {
    clearInterval(this.timer);
    this.timer = null;
  }
}

function closeTable({ keep = false } = {}) {
  if (!current) return;
  current.view?.destroy();
  current.presence?.destroy();
  if (!keep) client.leave(current.table);
  current = null;
  document.body.dataset.game = "";
}

function showLobby() {
  lobby?.destroy();
  lobby = new Lobby(main, client, {
    open: (table, opts) => navigate(table, opts),
    endings: () => endings,
    dismissEndings: () => {
      endings = [];
    },
  });
  document.title = "Tables – Mille Bornes & cubes";
  main.focus({ preventScroll: true });
}

function navigate(table, { code, watch } = {}) {
  const q = new URLSearchParams();
  if (code) q.set("code", code);
  if (watch) q.set("watch", "");
  const query = q.toString().replace(/=$/, "").replace(/=&/g, "&");
  location.hash = `#/table/${table}${query ? `?${query}` : ""}`;
}

async function openTable({ table, code, watch }) {
  closeTable();
  const nav = navigation;
  // After each wait: was another screen asked for meanwhile?
  const stale = () => nav !== navigation;
  main.replaceChildren(el("p", { class: "loading" }, `Opening table ${table}…`));
  // What the table says while its screen is being made waits for it.
  const opening = { table, game: null, view: null, seat: null, over: false, hash: location.hash, waiting: [] };
  current = opening;
  const held = client.welcome.seats.find((s) => s.table === table);
  let msg;
  let note = "";
  try {
    if (watch && !held) msg = await client.watch(table, { code });
    else msg = await client.join(table, { seat: held?.seat, code });
  } catch (e) {
    if (!watch && ["table_full", "game_over", "seat_taken"].includes(e.code)) {
      note = e.code === "game_over" ? "This game is over: you are watching how it ended." : `${e.message}: you are watching.`;
      try {
        msg = await client.watch(table, { code });
      } catch (e2) {
        return stale() || tableGone(e2.message);
      }
    } else {
      return stale() || tableGone(e.message);
    }
  }
  if (stale()) return client.leave(table);
  const obs = msg.observation;
  const game = obs && obs.settings ? "cubes" : "mille";
  let summary = null;
  try {
    const list = await client.request({ type: "list" }, "tables");
    summary = list.tables.find((t) => t.id === table) || null;
  } catch {
    // The summary only adds who is connected; the table works without it.
  }
  const mod = await import(game === "cubes" ? "./cubes.js" : "./mille.js");
  if (stale()) return client.leave(table);
  const seat = msg.type === "joined" ? msg.seat : null;
  const ctx = {
    client,
    table,
    seat,
    code,
    name: client.name,
    summary,
    move: (action) => client.move(table, action),
    ready: () => client.ready(table),
    leave: async () => {
      if (!(await confirmLeave())) return;
      leaving = true;
      location.hash = "#/";
    },
    shared: () => (opening.seats || []).filter((s) => s.kind === "human").length > 1,
    announce,
  };
  document.body.dataset.game = game;
  const viewRoot = el("div", { class: "table-view" });
  const presence = new Presence(seat);
  for (const text of opening.declined || []) presence.declined(text);
  main.replaceChildren(tableBar(table, game, summary, seat, code), presence.box, viewRoot);
  Object.assign(opening, { game, seat, over: gameOver(obs), seats: summary?.seats || null, rated: !!summary?.rated, presence });
  const view = mod.mount(viewRoot, ctx);
  // The answer, then whatever came after it, in order.
  view.show(msg);
  for (const m of opening.waiting) {
    if (m === msg || m.type !== "update") continue;
    view.show(m);
    if (m.seats) opening.seats = m.seats;
  }
  opening.view = view;
  opening.waiting = [];
  presence.show(opening.seats, opening.over);
  if (note) announce(note);
  const whoSits = seat === null ? "watching" : `seat ${seat + 1}`;
  document.title = `Table ${table} (${whoSits}) – ${game === "cubes" ? "cubes" : "Mille Bornes"}`;
}

/** The line above every table: what it is, the invitation link, leave. */
function tableBar(table, game, summary, seat, code) {
  const what = summary ? summary.ruleset : game === "cubes" ? "cubes" : "Mille Bornes";
  const link = tableLink(table, code);
  const copy = el(
    "button",
    {
      type: "button",
      id: "copy-link",
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(link);
          announce("The link is copied.");
          copy.textContent = "Link copied";
        } catch {
          // No clipboard (a plain-HTTP page on another machine): show the link to copy by hand.
          field.hidden = false;
          field.select();
        }
      },
    },
    code ? "Copy the invitation link" : "Copy the link",
  );
  const field = el("input", { class: "link-field", readonly: true, value: link, "aria-label": "Link to this table", hidden: true });
  return el(
    "div",
    { class: "table-bar" },
    el(
      "h1",
      {},
      `Table ${table}: ${game === "cubes" ? "cubes" : "Mille Bornes"}`,
      el("span", { class: "ruleset" }, ` ${what}`),
      summary && !summary.rated ? el("span", { class: "badge casual" }, "casual") : null,
      seat === null ? el("span", { class: "badge" }, "watching") : null,
    ),
    el("span", { class: "bar-actions" }, copy, field, " ", el("a", { href: "#/", class: "button", id: "leave" }, seat === null ? "Stop watching" : "Back to the tables")),
  );
}

function tableGone(message) {
  current = null;
  main.replaceChildren(
    el("div", { class: "panel" }, el("h1", {}, "This table cannot be opened"), el("p", { role: "alert" }, message), el("p", {}, el("a", { href: "#/" }, "Back to the tables"))),
  );
}

async function showScores(game) {
  main.replaceChildren(el("h1", {}, "Scores"));
  const tabs = el(
    "p",
    { class: "tabs" },
    el("a", { href: "#/scores/mille", "aria-current": game === "mille" ? "page" : null }, "Mille Bornes high scores"),
    " ",
    el("a", { href: "#/scores/cubes", "aria-current": game === "cubes" ? "page" : null }, "cubes rankings"),
  );
  main.append(tabs);
  main.append(...(await rankingNodes(client, game)));
  document.title = "Scores – Mille Bornes & cubes";
}

/** "New key": the server replaces the name's token (whoever saw the old
 *  one can no longer play under the name; other tabs of this browser read
 *  the new one when they connect again). */
async function replaceToken() {
  const choice = await dialog({
    title: "Replace this name's key?",
    body: [
      el("p", {}, `This browser keeps a secret key that proves "${client.name}" is yours. If somebody else may have seen it, replace it: the old key then works nowhere, and this browser keeps the new one.`),
      el("p", {}, "Another browser or a terminal client that plays under this name needs the new key to go on."),
    ],
    buttons: [
      { label: "Replace the key", value: true },
      { label: "Cancel", value: false, primary: true },
    ],
  });
  if (choice !== true) return;
  try {
    await client.newToken();
    announce("The key is replaced: this browser keeps the new one.");
  } catch (e) {
    announce(`The key was not replaced: ${e.message}.`, { assertive: true });
  }
}

/** "Sign out": the server revokes the token; this browser forgets it and
 *  asks for a name again. */
async function signOut() {
  const name = client.name;
  const choice = await dialog({
    title: `Sign out of "${name}"?`,
    body: [
      el("p", {}, "Signing out revokes this name's key on the server and forgets it in this browser."),
      el("p", {}, "If the name has games (a seat at a table, or finished games in the scores), it stays reserved for its results: nobody can play under it again, not even you. If it has no games, it becomes free for anybody."),
    ],
    buttons: [
      { label: "Sign out", value: true },
      { label: "Stay signed in", value: false, primary: true },
    ],
  });
  if (choice !== true) return;
  try {
    await client.signOut();
  } catch (e) {
    announce(`Not signed out: ${e.message}.`, { assertive: true });
    return;
  }
  // The client forgot the key when `signed_out` came.
  who.replaceChildren();
  history.replaceState(null, "", "#/");
  route = null;
  askName(`You are signed out of "${name}".`);
}

/** The name form: the first screen of a new player, and "change". */
function askName(problem) {
  closeTable({ keep: true });
  lobby?.destroy();
  lobby = null;
  const id = loadIdentity();
  const input = el("input", { id: "name", name: "name", autocomplete: "nickname", maxlength: "31", required: true, value: client.name || id.last || "" });
  const msg = el("p", { id: "name-problem", class: "problem", role: "alert" }, problem || "");
  input.setAttribute("aria-describedby", "name-problem");
  const known = Object.keys(id.tokens);
  const form = el(
    "form",
    {
      class: "panel name-form",
      onsubmit: (e) => {
        e.preventDefault();
        const name = input.value.trim();
        const p = nameProblem(name);
        if (p) {
          msg.textContent = p;
          input.focus();
          return;
        }
        client.reset();
        if (location.hash.startsWith("#/name")) history.replaceState(null, "", "#/");
        route = null;
        client.start(name);
      },
    },
    el("h1", {}, "Mille Bornes & cubes"),
    el("p", {}, "Play Mille Bornes and cubes with the people on this server, or against the computer."),
    el("label", { for: "name" }, "Your name"),
    input,
    msg,
    known.length ? el("p", { class: "small" }, `Names this browser has played as here: ${known.join(", ")}.`) : null,
    el("p", { class: "small" }, "The name is yours on this server: this browser keeps its key. Another browser cannot play under it."),
    el("button", { type: "submit", class: "primary" }, "Play"),
  );
  main.replaceChildren(form);
  input.focus();
}

document.addEventListener("keydown", (e) => {
  if (e.key === "F1") {
    e.preventDefault();
    if (current?.view?.help) current.view.help();
    else generalHelp();
    return;
  }
  if (typing(e) || e.ctrlKey || e.metaKey || e.altKey) return;
  if (document.querySelector("dialog[open]")) return;
  if (current?.view?.key?.(e)) e.preventDefault();
});

function generalHelp() {
  dialog({
    title: "Help",
    body: [
      el("p", {}, "The tables of this server: open one with New table, or join a free seat. Computers fill the seats nobody takes."),
      el("p", {}, "A private table is not listed: send its invitation link to the people you want to play with."),
      el("p", {}, "At a table, F1 explains the screen and its keys."),
      leavingHelp(client),
    ],
  });
}

// Sounds: off until turned on here; the choice is remembered.
const soundButton = document.getElementById("sound-button");
soundButton.setAttribute("aria-pressed", String(sounds.enabled));
soundButton.addEventListener("click", () => {
  const on = !sounds.enabled;
  sounds.set(on);
  soundButton.setAttribute("aria-pressed", String(on));
  announce(on ? "Sounds on." : "Sounds off.");
});

document.getElementById("help-button")?.addEventListener("click", () => (current?.view?.help ? current.view.help() : generalHelp()));

window.addEventListener("hashchange", () => go());
document.querySelector(".skip")?.addEventListener("click", (e) => {
  e.preventDefault();
  main.focus();
});
window.addEventListener("pagehide", () => client.stop());
// A page brought back from the browser's back-forward cache connects again.
window.addEventListener("pageshow", (e) => {
  if (e.persisted && client.name) client.start(client.name);
});

// Start: the name this browser played under last, else ask for one.
route = parseRoute();
const start = loadIdentity().last;
if (start && route.page !== "name") client.start(start);
else askName("");

