// The site's pages beside the lobby, drawn from the server's JSON:
//   /ladder            the ratings of one game and ruleset (a selector of all)
//   /players/NAME      a player's ratings with their history, the last games
//   /arena             the arena's standings and its games (when the
//                      server runs one)
//   /games/ID          a finished game replayed move by move, with the board
//                      of the live page (mille.js, cubes.js), seen by a
//                      spectator or by any seat, and any seat's review
//                      drawn over it (#review-N opens seat N's)
// Each links to the others; nothing here changes anything on the server.

import { el, announce } from "./ui.js";

const main = document.getElementById("main");

/** The rating categories, as the server names them. */
const CATEGORIES = [
  ["mille-bsd", "Mille Bornes, bsd"],
  ["mille-milebones", "Mille Bornes, milebones"],
  ["mille-classic-2", "Mille Bornes, classic, 2 players"],
  ["mille-classic-3", "Mille Bornes, classic, 3 players"],
  ["mille-classic-4", "Mille Bornes, classic, 4 players"],
  ["mille-classic-6", "Mille Bornes, classic, 6 players"],
  ["cubes-standard", "Cubes, standard"],
  ["cubes-blitz", "Cubes, blitz"],
  ["cubes-jokers", "Cubes, with jokers"],
];

/** GETs JSON: the data, or throws an Error with the server's sentence. */
async function getJson(url) {
  let res;
  try {
    res = await fetch(url, { headers: { accept: "application/json" } });
  } catch {
    throw new Error("The server did not answer. Try again in a moment.");
  }
  let body = null;
  try {
    body = await res.json();
  } catch {
    // An answer that is not JSON: said below by its status.
  }
  if (!res.ok) throw new Error(body?.error ? capital(body.error) : `The server answered ${res.status}.`);
  return body;
}

function capital(s) {
  return s ? s[0].toUpperCase() + s.slice(1) + (/[.!?]$/.test(s) ? "" : ".") : s;
}

function day(seconds) {
  return seconds ? new Date(seconds * 1000).toISOString().slice(0, 10) : "";
}

function when(seconds) {
  return seconds ? new Date(seconds * 1000).toISOString().slice(0, 16).replace("T", " ") + " UTC" : "";
}

function playerHref(name) {
  return `/players/${encodeURIComponent(name)}`;
}

function isComputer(name) {
  return name.startsWith("computer: ");
}

/** A rating as people read it: `1540`, or `1540?` while provisional. */
function ratingNode(r) {
  return el("span", { class: "rating" }, String(r.rating), r.provisional ? [el("span", { "aria-hidden": "true" }, "?"), el("span", { class: "sr-only" }, " (provisional)")] : null);
}

function problem(message) {
  return el("p", { class: "problem", role: "alert" }, message);
}

function show(title, ...nodes) {
  document.title = `${title} – Mille Bornes & cubes`;
  main.replaceChildren(...nodes.filter(Boolean));
}

// ---- the ladder ---------------------------------------------------------

async function ladderPage() {
  const params = new URLSearchParams(location.search);
  let id = params.get("category");
  if (!CATEGORIES.some(([c]) => c === id)) id = CATEGORIES[0][0];
  const select = el("select", { id: "category" }, CATEGORIES.map(([c, title]) => el("option", { value: c, selected: c === id }, title)));
  const body = el("div", { id: "ladder-body" });
  document.getElementById("nav-ladder")?.setAttribute("aria-current", "page");
  show(
    "Ladder",
    el("h1", {}, "Ladder"),
    el("p", { class: "intro" }, "The ratings of everybody who played rated games here, best first. A rating followed by ? is provisional: too few games, or none for a long time, to trust it yet. The computer players are rated too, so that every rating has the same meaning."),
    el("p", { class: "picker" }, el("label", { for: "category" }, "Game and rules"), select),
    body,
  );
  const load = async () => {
    const c = select.value;
    const title = CATEGORIES.find(([k]) => k === c)?.[1] || c;
    const url = new URL(location.href);
    url.searchParams.set("category", c);
    history.replaceState(null, "", url);
    body.replaceChildren(el("p", { class: "loading" }, "Loading…"));
    let rows;
    try {
      rows = await getJson(`/api/ladder?category=${encodeURIComponent(c)}`);
    } catch (e) {
      body.replaceChildren(problem(e.message));
      return;
    }
    if (select.value !== c) return;
    if (!rows.length) {
      body.replaceChildren(el("p", { class: "empty" }, `Nobody is rated in ${title} yet: a rated game of it puts its players here.`));
      announce(`${title}: nobody rated yet.`);
      return;
    }
    // Bots (programs with accounts) have a section of their own, after
    // the people and the built-in computers: one scale, two lists.
    const people = rows.filter((r) => !r.bot);
    const bots = rows.filter((r) => r.bot);
    body.replaceChildren(
      people.length ? ladderTable(title, people) : el("p", { class: "empty" }, `No person is rated in ${title} yet.`),
      bots.length ? el("h2", { id: "bots-title" }, "Bots") : null,
      bots.length ? el("p", { class: "small" }, "Programs playing through accounts of their own, rated on the same scale.") : null,
      bots.length ? ladderTable(`Bots: ${title}`, bots, { bots: true }) : null,
    );
    const count = (n, one, many) => `${n} ${n === 1 ? one : many}`;
    announce(`${title}: ${count(people.length, "rated player", "rated players")}${bots.length ? ` and ${count(bots.length, "bot", "bots")}` : ""}.`);
  };
  select.addEventListener("change", load);
  arenaLink();
  await load();
}

/** The arenas this server runs (asked once per page): `[]` when none. */
let arenasAsked = null;
function arenas() {
  arenasAsked ||= getJson("/api/arenas")
    .then((list) => (Array.isArray(list) ? list : []))
    .catch(() => []);
  return arenasAsked;
}

/** A link to the arena's standings, when this server runs an arena. */
async function arenaLink() {
  const list = await arenas();
  if (!list.length) return;
  const intro = main.querySelector(".intro");
  intro?.after(el("p", { class: "arena-link" }, list.map((a) => el("a", { href: a.url || "/arena" }, `The arena: ${a.title || a.arena}`)), " — bots playing each other on duplicate deals, and their standings."));
}

function ladderTable(title, rows, { bots = false } = {}) {
  const head = ["Rank", "Player", "Rating", "Games", "Wins", "Last played"];
  const num = new Set(["Rank", "Rating", "Games", "Wins"]);
  return el(
    "div",
    { class: "scroll", tabindex: "0", role: "region", "aria-label": `Ladder: ${title}` },
    el(
      "table",
      { class: `data ladder${bots ? " bots" : ""}` },
      el("caption", {}, title),
      el("thead", {}, el("tr", {}, head.map((h) => el("th", { scope: "col", class: num.has(h) ? "num" : null }, h)))),
      el(
        "tbody",
        {},
        rows.map((r, i) =>
          el(
            "tr",
            { class: r.computer ? "computer" : r.bot ? "bot" : null },
            el("td", { class: "num" }, String(i + 1)),
            el("th", { scope: "row" }, el("a", { href: playerHref(r.name) }, r.name), r.computer ? el("span", { class: "tag" }, "computer") : null, r.bot ? el("span", { class: "tag bot" }, "bot") : null),
            el("td", { class: "num" }, ratingNode(r)),
            el("td", { class: "num" }, String(r.games)),
            el("td", { class: "num" }, String(r.wins)),
            el("td", {}, day(r.last_played)),
          ),
        ),
      ),
    ),
  );
}

// ---- a player -----------------------------------------------------------

async function playerPage(name) {
  show(name, el("h1", {}, name), el("p", { class: "loading" }, "Loading…"));
  let p;
  try {
    p = await getJson(`/api/players/${encodeURIComponent(name)}`);
  } catch (e) {
    show(name, el("h1", {}, name), problem(e.message), el("p", {}, el("a", { href: "/ladder" }, "See the ladder")));
    return;
  }
  const ratings = p.ratings.length
    ? el("div", { class: "ratings" }, p.ratings.map((r) => ratingCard(r)))
    : el("p", { class: "empty" }, `${p.name} has no rated game yet.`);
  show(
    p.name,
    el("h1", {}, p.name, isComputer(p.name) ? el("span", { class: "tag" }, "computer") : null, p.bot ? el("span", { class: "tag bot" }, "bot") : null),
    p.bot ? el("p", { class: "bot-line" }, `Bot by ${p.bot.owner}${p.bot.description ? `: ${p.bot.description}` : "."}`) : null,
    el("h2", {}, "Ratings"),
    ratings,
    el("h2", { id: "games-title" }, "Last games"),
    gamesTable(p),
    el("p", {}, el("a", { href: "/ladder" }, "The ladder"), " · ", el("a", { href: "/" }, "The tables")),
  );
}

function ratingCard(r) {
  const id = `r-${r.category}`;
  const ladder = `/ladder?category=${encodeURIComponent(r.category)}`;
  return el(
    "section",
    { class: "rating-card", "aria-labelledby": id },
    el("h2", { id }, r.title),
    el("p", { class: "big" }, ratingNode(r)),
    el("p", { class: "small" }, `deviation ${r.deviation} · ${r.games} ${r.games === 1 ? "game" : "games"}, ${r.wins} won · last played ${day(r.last_played)} · `, el("a", { href: ladder }, "ladder")),
    chart(r),
  );
}

/** The rating's history as a small line chart, and in words for those
 *  who cannot see it. */
function chart(r) {
  const points = [...(r.history || [])].sort((a, b) => a.at - b.at || a.table - b.table);
  if (!points.length) return null;
  const W = 300;
  const H = 90;
  const pad = 6;
  const values = points.map((p) => p.rating);
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (hi - lo < 40) {
    const mid = (hi + lo) / 2;
    lo = mid - 20;
    hi = mid + 20;
  }
  const x = (i) => (points.length === 1 ? W / 2 : pad + ((W - 2 * pad) * i) / (points.length - 1));
  const y = (v) => pad + ((H - 2 * pad) * (hi - v)) / (hi - lo);
  const coords = points.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ");
  const first = points[0].rating;
  const last = points[points.length - 1].rating;
  const words = `Rating history: ${first} after the first rated game, ${last} after the last, over ${points.length} ${points.length === 1 ? "game" : "games"}; lowest ${Math.min(...values)}, highest ${Math.max(...values)}.`;
  const svg = el(
    "svg:svg",
    { class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": words },
    el("svg:line", { class: "axis", x1: 0, y1: H - 1, x2: W, y2: H - 1 }),
    el("svg:polyline", { class: "line", points: coords }),
    points.map((p, i) => el("svg:circle", { class: "dot", cx: x(i).toFixed(1), cy: y(p.rating).toFixed(1), r: 2.5 }, el("svg:title", {}, `Table ${p.table}, ${day(p.at)}: ${p.rating}`))),
  );
  return svg;
}

function gamesTable(p) {
  if (!p.games.length) return el("p", { class: "empty" }, "No finished game to show.");
  return el(
    "div",
    { class: "scroll", tabindex: "0", role: "region", "aria-labelledby": "games-title" },
    el(
      "table",
      { class: "data games" },
      el("thead", {}, el("tr", {}, ["Finished", "Game", "Players", "Result", "Replay"].map((h) => el("th", { scope: "col" }, h)))),
      el(
        "tbody",
        {},
        p.games.map((g) =>
          el(
            "tr",
            {},
            el("td", {}, when(g.finished_at)),
            el("td", {}, g.ruleset, g.rated ? el("span", { class: "tag" }, "rated") : el("span", { class: "tag" }, "casual")),
            el(
              "td",
              {},
              el(
                "ul",
                { class: "seats" },
                g.seats.map((s) =>
                  el(
                    "li",
                    { class: s.won ? "won" : null },
                    s.name === p.name ? s.name : el("a", { href: playerHref(s.name) }, s.name),
                    ` ${s.score}`,
                    s.won ? " (won)" : null,
                    s.abandoned ? el("span", { class: "tag abandoned" }, "abandoned") : null,
                  ),
                ),
              ),
            ),
            el("td", {}, resultWord(g.result)),
            el("td", {}, el("a", { href: g.url }, `Replay game ${g.table}`)),
          ),
        ),
      ),
    ),
  );
}

function resultWord(r) {
  return { won: "Won", lost: "Lost", abandoned: "Abandoned" }[r] || "–";
}

// ---- the arena ----------------------------------------------------------

async function arenaPage() {
  document.getElementById("nav-arena")?.setAttribute("aria-current", "page");
  show("Arena", el("h1", {}, "Arena"), el("p", { class: "loading" }, "Loading…"));
  let a;
  try {
    a = await getJson("/api/arena");
  } catch (e) {
    show("Arena", el("h1", {}, "Arena"), problem(e.message), el("p", {}, el("a", { href: "/ladder" }, "The ladder"), " · ", el("a", { href: "/" }, "The tables")));
    return;
  }
  const title = a.title || a.arena;
  const rounds = typeof a.rounds === "number" ? a.rounds : null;
  show(
    "Arena",
    el("h1", {}, "Arena ", el("span", { class: "ruleset" }, title)),
    el(
      "p",
      { class: "intro" },
      a.fresh_deals
        ? "Bots connected with an entry to the arena play each other in rounds: every pair plays two games, the seats swapped, each on a deal of its own. A bot that sends an illegal move, takes too long or drops its connection loses that game by forfeit. Every game is rated on the ladder."
        : "Bots connected with an entry to the arena play each other in rounds: every pair plays two games on one deal, the seats swapped, so that luck cancels. A bot that sends an illegal move, takes too long or drops its connection loses that game by forfeit. Every game is rated on the ladder.",
    ),
    rounds !== null ? el("p", { class: "small" }, rounds === 1 ? "1 round played." : `${rounds} rounds played.`) : null,
    el("h2", { id: "standings-title" }, "Standings"),
    standingsTable(a.standings || []),
    el("h2", { id: "arena-games-title" }, "Games"),
    arenaGames(a.games || []),
    el("p", {}, el("a", { href: "/ladder" }, "The ladder"), " · ", el("a", { href: "/" }, "The tables")),
  );
  announce(`Arena ${title}: ${(a.standings || []).length} bots, ${(a.games || []).length} games.`);
}

/** A standing's rating: its number, with ? while provisional; "–" when
 *  it has none yet. */
function standingRating(s) {
  const r = s.rating;
  if (r === null || r === undefined) return "–";
  if (typeof r === "object") return ratingNode(r);
  return ratingNode({ rating: r, provisional: !!s.provisional });
}

function standingsTable(rows) {
  if (!rows.length) return el("p", { class: "empty" }, "No arena game has finished yet: the standings come with the first results.");
  const head = [
    ["Place", true],
    ["Bot", false],
    ["Owner", false],
    ["Games", true],
    ["Wins", true],
    ["Losses", true],
    ["Forfeits", true],
    ["Points", true],
    ["Rating", true],
  ];
  return el(
    "div",
    { class: "scroll", tabindex: "0", role: "region", "aria-labelledby": "standings-title" },
    el(
      "table",
      { class: "data standings" },
      el("thead", {}, el("tr", {}, head.map(([h, num]) => el("th", { scope: "col", class: num ? "num" : null }, h)))),
      el(
        "tbody",
        {},
        rows.map((s, i) =>
          el(
            "tr",
            {},
            el("td", { class: "num" }, String(s.place ?? i + 1)),
            el("th", { scope: "row" }, el("a", { href: playerHref(s.name) }, s.name)),
            el("td", {}, s.owner || ""),
            el("td", { class: "num" }, String(s.games)),
            el("td", { class: "num" }, String(s.wins)),
            el("td", { class: "num" }, String(s.losses)),
            el("td", { class: "num" }, String(s.forfeits)),
            el("td", { class: "num" }, String(s.points)),
            el("td", { class: "num" }, standingRating(s)),
          ),
        ),
      ),
    ),
  );
}

function arenaGames(games) {
  if (!games.length) return el("p", { class: "empty" }, "No arena game has finished yet.");
  return el(
    "div",
    { class: "scroll", tabindex: "0", role: "region", "aria-labelledby": "arena-games-title" },
    el(
      "table",
      { class: "data games arena-games" },
      el("thead", {}, el("tr", {}, ["Round", "Players", "Forfeit", "Replay"].map((h, i) => el("th", { scope: "col", class: i === 0 ? "num" : null }, h)))),
      el(
        "tbody",
        {},
        games.map((g) =>
          el(
            "tr",
            {},
            el("td", { class: "num" }, String(g.round)),
            el(
              "td",
              {},
              el(
                "ul",
                { class: "seats" },
                (g.seats || []).map((s) => el("li", { class: s.won ? "won" : null }, el("a", { href: playerHref(s.name) }, s.name), ` ${s.score ?? ""}`, s.won ? " (won)" : null)),
              ),
            ),
            el("td", {}, g.forfeit ? `${g.seats?.[g.forfeit.seat]?.name || `Seat ${g.forfeit.seat + 1}`}: ${g.forfeit.reason}` : "–"),
            el("td", {}, el("a", { href: `/games/${g.table}` }, `Replay game ${g.table}`)),
          ),
        ),
      ),
    ),
  );
}

// ---- a finished game, replayed ------------------------------------------

/** The replay's state: the game, the steps of the viewer chosen, where we are. */
const replay = { game: null, steps: [], at: 0, seat: null, view: null, mod: null, root: null, hands: [], code: null, loading: 0 };

async function gamePage(id, code) {
  replay.code = code;
  show(`Game ${id}`, el("h1", {}, `Game ${id}`), el("p", { class: "loading" }, "Loading…"));
  const q = code ? `?code=${encodeURIComponent(code)}` : "";
  let g;
  try {
    g = await getJson(`/api/games/${encodeURIComponent(id)}${q}`);
  } catch (e) {
    // A game still being played is watched from the lobby's page.
    const watch = /not over/.test(e.message) && /^\d+$/.test(id) ? el("p", {}, el("a", { href: `/#/table/${id}?watch` }, `Watch table ${id}`)) : null;
    show(`Game ${id}`, el("h1", {}, `Game ${id}`), problem(e.message), watch, el("p", {}, el("a", { href: "/" }, "The tables"), " · ", el("a", { href: "/ladder" }, "The ladder")));
    return;
  }
  replay.game = g;
  const seen = el("select", { id: "seen-by" }, el("option", { value: "" }, "a spectator"), g.players.map((p) => el("option", { value: String(p.seat) }, `${p.name} (seat ${p.seat + 1})`)));
  seen.addEventListener("change", () => loadViews(seen.value === "" ? null : Number(seen.value)));
  const range = el("input", { type: "range", id: "step-range", min: 0, max: 0, value: 0, "aria-label": "Move" });
  range.addEventListener("input", () => go(Number(range.value)));
  const button = (label, id, f, keys) => el("button", { type: "button", id, onclick: f, "aria-keyshortcuts": keys }, label);
  const hand = el("select", { id: "hand" });
  hand.addEventListener("change", () => go(Number(hand.value)));
  const handLabel = el("label", { for: "hand" }, "Hand");
  replay.root = el("div", { class: "table-view" });
  const outcome = {
    finished: "",
    abandoned: "Closed as abandoned: nobody came back, so it has no result.",
    broken: "Stopped: its log could not be played on.",
    unstarted: "It never started.",
  }[g.outcome];
  show(
    `Game ${g.id}`,
    el("div", { class: "table-bar" }, el("h1", {}, `Game ${g.id} `, el("span", { class: "ruleset" }, g.ruleset)), el("p", { class: "small" }, g.rated ? "Rated" : "Casual", g.finished_at ? ` · ended ${when(g.finished_at)}` : "", g.private ? " · private table" : "")),
    outcome ? el("p", {}, outcome) : null,
    g.forfeit ? el("p", { class: "forfeit" }, `${g.forfeit.name || `Seat ${g.forfeit.seat + 1}`} lost by forfeit: ${g.forfeit.reason}`) : null,
    g.arena ? el("p", { class: "small" }, `An arena game (round ${g.arena.round}): `, el("a", { href: "/arena" }, "the arena's standings")) : null,
    el("h2", { id: "players-title" }, "Players"),
    el("ul", { class: "players-list", "aria-labelledby": "players-title" }, g.players.map((p) => playerItem(p))),
    reviewSection(g),
    el(
      "div",
      { class: "replay-bar", role: "group", "aria-label": "Replay" },
      el("span", { class: "picker" }, el("label", { for: "seen-by" }, "Seen by"), seen),
      el(
        "span",
        { class: "steps" },
        button("First", "step-first", () => go(0), "Home"),
        button("Back", "step-back", () => go(replay.at - 1), "ArrowLeft"),
        button("Forward", "step-forward", () => go(replay.at + 1), "ArrowRight"),
        button("Last", "step-last", () => go(replay.steps.length - 1), "End"),
      ),
      g.game === "mille" ? el("span", { class: "picker" }, handLabel, hand) : null,
      range,
    ),
    el("p", { class: "step-line", id: "step-line", "aria-live": "polite" }),
    el("p", { class: "small keys-line" }, "Keys: ← and → step back and forward, Home and End go to the start and the end", g.game === "mille" ? ", Page Up and Page Down to the previous and next hand." : "."),
    replay.root,
  );
  replay.mod = await import(g.game === "cubes" ? "/cubes.js" : "/mille.js");
  const asked = reviewAsked();
  await loadViews(asked ?? null);
  if (asked !== null) startReview(asked);
  else if (location.hash === "#review") document.getElementById("review-title")?.focus();
}

function playerItem(p) {
  const result = p.score === null || p.score === undefined ? "" : ` ${p.score}${p.won ? ", won" : ""}`;
  return el(
    "li",
    { class: p.won ? "won" : null },
    el("a", { href: playerHref(p.name) }, p.name),
    p.computer ? el("span", { class: "tag" }, "computer") : null,
    p.bot ? el("span", { class: "tag bot" }, "bot") : null,
    result,
    p.abandoned ? el("span", { class: "tag abandoned" }, "abandoned") : null,
    p.stand_in_moves ? el("span", { class: "small" }, ` (a computer stood in for ${p.stand_in_moves} ${p.stand_in_moves === 1 ? "move" : "moves"})`) : null,
  );
}

/** Fetches the steps as `seat` (null: a spectator) saw them, and shows
 *  the same moment as before (or step `at`). */
async function loadViews(seat, at = null) {
  const g = replay.game;
  const n = ++replay.loading;
  const params = new URLSearchParams();
  if (seat !== null) params.set("seat", String(seat));
  if (replay.code) params.set("code", replay.code);
  const q = params.toString();
  const line = document.getElementById("step-line");
  let v;
  try {
    v = await getJson(`/api/games/${g.id}/views${q ? `?${q}` : ""}`);
  } catch (e) {
    if (n === replay.loading) replay.root.replaceChildren(problem(e.message));
    return;
  }
  if (n !== replay.loading) return;
  const first = !replay.steps.length;
  replay.steps = v.steps;
  replay.seat = seat;
  const range = document.getElementById("step-range");
  range.max = String(v.steps.length - 1);
  handsOf(v.steps);
  document.getElementById("seen-by").value = seat === null ? "" : String(seat);
  const where = at !== null ? Math.min(at, v.steps.length - 1) : first ? 0 : Math.min(replay.at, v.steps.length - 1);
  mountAt(where);
  if (!first) announce(`Seen by ${seat === null ? "a spectator" : g.players.find((p) => p.seat === seat)?.name || `seat ${seat + 1}`}.`);
  else if (line) line.dataset.ready = "true";
}

/** Where each hand starts (mille): the hand select's options. */
function handsOf(steps) {
  const hand = document.getElementById("hand");
  if (!hand) return;
  replay.hands = [];
  let last = null;
  steps.forEach((s, i) => {
    const h = s.observation?.hand_number;
    if (typeof h === "number" && h !== last) {
      replay.hands.push({ number: h, step: i });
      last = h;
    }
  });
  hand.replaceChildren(...replay.hands.map((h) => el("option", { value: String(h.step) }, `Hand ${h.number + 1}`)));
}

/** What the board is given: nothing it could act on (the game is over). */
function quiet(observation) {
  if (!observation || typeof observation !== "object") return observation;
  return Array.isArray(observation.legal) ? { ...observation, legal: [] } : observation;
}

function seatsSummary() {
  return replay.game.players.map((p) => ({ kind: p.computer ? "computer" : "human", player: p.name, connected: true, away: false, bot: !!p.bot }));
}

/** Shows step `k` on a new board: the few steps before it first, so that
 *  the board's own record of the latest moves is filled. */
function mountAt(k) {
  replay.view?.destroy?.();
  replay.root.replaceChildren();
  const noop = () => null;
  const ctx = {
    client: { request: () => Promise.reject(new Error("The rankings and the tables are on the lobby's page (Tables, at the top).")), name: null },
    table: replay.game.id,
    seat: replay.seat,
    code: null,
    name: null,
    summary: { seats: seatsSummary() },
    move: noop,
    ready: noop,
    leave: noop,
    announce,
  };
  document.body.dataset.game = replay.game.game;
  replay.view = replay.mod.mount(replay.root, ctx);
  const from = Math.max(0, k - 6);
  for (let i = from; i <= k; i++) feed(i, i === from);
  replay.at = k;
  told();
}

function feed(i, first) {
  const s = replay.steps[i];
  const focused = document.activeElement;
  replay.view.show({ type: first ? "watching" : "update", table: replay.game.id, seq: s.seq, observation: quiet(s.observation), seats: seatsSummary() });
  tidy();
  // A question the board asked and tidy() closed gives the focus to the
  // board (at once or a moment later): it goes back to the control used.
  const back = () => {
    const now = document.activeElement;
    if (focused instanceof HTMLElement && focused.isConnected && !replay.root.contains(focused) && now !== focused && (!now || now === document.body || replay.root.contains(now))) focused.focus();
  };
  back();
  setTimeout(back, 0);
}

/** The live board's questions and timed windows belong to a game in
 *  progress: none of them is asked of a replay. */
function tidy() {
  const v = replay.view;
  if (v?.timers instanceof Set) {
    for (const t of v.timers) clearTimeout(t);
    v.timers.clear();
  }
  if (v?.timer) {
    clearInterval(v.timer);
    v.timer = null;
  }
  for (const d of document.querySelectorAll("dialog[open]")) d.close();
  // Its links to the lobby's screens lead to the lobby's page.
  for (const a of replay.root.querySelectorAll('a[href^="#/"]')) a.setAttribute("href", `/${a.getAttribute("href")}`);
  // Its link to this game's review stays on this page (and its code).
  for (const a of replay.root.querySelectorAll("a.review-link")) a.setAttribute("href", `${location.pathname}${location.search}#review${replay.seat === null ? "" : `-${replay.seat}`}`);
}

/** Goes to step `k`: one step forward is played as it happened, any
 *  other move redraws the board at that moment. */
function go(k) {
  const n = replay.steps.length;
  if (!n) return;
  k = Math.max(0, Math.min(n - 1, k));
  if (k === replay.at) {
    told();
    return;
  }
  if (k === replay.at + 1) {
    feed(k, false);
    replay.at = k;
    told();
  } else mountAt(k);
}

/** The step line, the controls' state and the URL say where we are. */
function told() {
  const g = replay.game;
  const k = replay.at;
  const s = replay.steps[k];
  const n = replay.steps.length;
  // The name the board shows ("Computer 2 (classic)"), else the result's.
  const name = (seat) => s.observation?.seat_info?.[seat]?.name || g.players.find((p) => p.seat === seat)?.name || `seat ${seat + 1}`;
  const line = document.getElementById("step-line");
  const words = [];
  words.push(k === 0 ? `Start of the game (step 0 of ${n - 1}).` : `Step ${k} of ${n - 1}${s.seat !== null && s.seat !== undefined ? `: ${name(s.seat)}` : ": the table"}.`);
  if (k === n - 1) words.push("The game is over.");
  line.replaceChildren(words.join(" "));
  if (s.stand_in) line.append(" ", el("span", { class: "tag stand-in" }, `a computer stood in for ${s.seat !== null ? name(s.seat) : "an absent player"}`));
  const range = document.getElementById("step-range");
  range.value = String(k);
  range.setAttribute("aria-valuetext", `step ${k} of ${n - 1}`);
  document.getElementById("step-first").disabled = k === 0;
  document.getElementById("step-back").disabled = k === 0;
  document.getElementById("step-forward").disabled = k === n - 1;
  document.getElementById("step-last").disabled = k === n - 1;
  const hand = document.getElementById("hand");
  if (hand && replay.hands.length) {
    let current = replay.hands[0];
    for (const h of replay.hands) if (h.step <= k) current = h;
    hand.value = String(current.step);
  }
  replay.root.dataset.step = String(k);
  reviewTold();
  // Focus left on a button that became disabled would fall to the page.
  const a = document.activeElement;
  if (a instanceof HTMLButtonElement && a.disabled) document.getElementById(k === 0 ? "step-forward" : "step-back")?.focus();
}

function handStep(delta) {
  const k = replay.at;
  const hs = replay.hands;
  if (!hs.length) return;
  let i = 0;
  for (let j = 0; j < hs.length; j++) if (hs[j].step <= k) i = j;
  if (delta < 0 && hs[i].step < k) go(hs[i].step);
  else go(hs[Math.max(0, Math.min(hs.length - 1, i + delta))].step);
}

document.addEventListener("keydown", (e) => {
  if (!replay.steps.length || e.altKey || e.ctrlKey || e.metaKey) return;
  const t = e.target;
  if (t instanceof HTMLElement && (t.closest("input, select, textarea, dialog") || t.isContentEditable)) return;
  const acts = {
    ArrowRight: () => go(replay.at + 1),
    ArrowLeft: () => go(replay.at - 1),
    Home: () => go(0),
    End: () => go(replay.steps.length - 1),
    PageDown: () => handStep(1),
    PageUp: () => handStep(-1),
  };
  const f = acts[e.key];
  if (!f) return;
  e.preventDefault();
  f();
});

// ---- a seat's review, drawn over the replay ------------------------------

/** The review shown: its seat, the document, the decision looked at. */
const review = { seat: null, doc: null, at: 0, asking: 0 };

/** The seat `#review-N` asks for, if any. */
function reviewAsked() {
  const m = location.hash.match(/^#review-(\d+)$/);
  const seat = m ? Number(m[1]) : null;
  return seat !== null && replay.game?.players.some((p) => p.seat === seat) ? seat : null;
}

function seatName(seat) {
  return replay.game.players.find((p) => p.seat === seat)?.name || `seat ${seat + 1}`;
}

function reviewSection(g) {
  const buttons = g.players.map((p) =>
    el("button", { type: "button", id: `review-seat-${p.seat}`, class: "review-seat", onclick: () => startReview(p.seat) }, `Review ${p.name}`),
  );
  return el(
    "section",
    { class: "review", id: "review", "aria-labelledby": "review-title" },
    el("h2", { id: "review-title", tabindex: "-1" }, "Review"),
    el("p", { class: "small intro" }, "Every decision of one seat beside the move the strongest player prefers, from what that seat knew then, and what it cost. Mille Bornes decisions are priced in points of the hand by a search; cubes decisions exactly, by the optimal player's tables."),
    el("p", { class: "review-seats", role: "group", "aria-label": "Review a seat" }, buttons),
    el("div", { id: "review-body" }),
  );
}

/** Asks for seat `seat`'s review, waits while it is made, then draws it. */
async function startReview(seat) {
  const g = replay.game;
  const n = ++review.asking;
  review.seat = seat;
  review.doc = null;
  for (const b of document.querySelectorAll("button.review-seat")) b.setAttribute("aria-pressed", String(b.id === `review-seat-${seat}`));
  if (location.hash !== `#review-${seat}`) history.replaceState(null, "", `${location.pathname}${location.search}#review-${seat}`);
  const body = document.getElementById("review-body");
  const status = el("p", { class: "review-status", role: "status" }, `Asking for ${seatName(seat)}'s review…`);
  body.replaceChildren(status);
  const params = new URLSearchParams({ seat: String(seat) });
  if (replay.code) params.set("code", replay.code);
  const url = `/api/games/${g.id}/review?${params}`;
  let doc;
  for (;;) {
    let res;
    let data = null;
    try {
      res = await fetch(url, { headers: { accept: "application/json" } });
      data = await res.json();
    } catch {
      data = null;
    }
    if (n !== review.asking) return;
    if (res?.status === 200 && data) {
      doc = data;
      break;
    }
    if (res?.status === 202 && data) {
      status.textContent = data.status === "running" ? `${seatName(seat)}'s review is being made…` : `${seatName(seat)}'s review is waiting its turn (${data.position === 1 ? "next" : `number ${data.position} in line`})…`;
      await new Promise((r) => setTimeout(r, 1000));
      if (n !== review.asking) return;
      continue;
    }
    body.replaceChildren(problem(data?.error ? capital(data.error) : "The server did not answer. Try again in a moment."));
    return;
  }
  review.doc = doc;
  review.at = 0;
  if (replay.seat !== seat) await loadViews(seat);
  if (n !== review.asking) return;
  drawReview();
  announce(`${seatName(seat)}'s review: ${doc.decisions.length} ${doc.decisions.length === 1 ? "decision" : "decisions"}, accuracy ${Math.round(doc.accuracy)}%.`);
  if (doc.decisions.length) toDecision(0, false);
}

function fmtLoss(x) {
  return x >= 10 ? String(Math.round(x)) : x.toFixed(1);
}

function unitShort(unit) {
  return unit === "points" ? "points" : "% of winning";
}

/** Which replay step shows decision `d`: the step its move is in. */
function stepOf(d) {
  const k = replay.steps.findIndex((s) => s.moves[0] <= d.move && d.move < s.moves[1]);
  return k < 0 ? replay.steps.length - 1 : k;
}

function drawReview() {
  const doc = review.doc;
  const body = document.getElementById("review-body");
  const who = seatName(doc.seat);
  const summary = el(
    "p",
    { class: "review-summary" },
    `${who}: accuracy ${Math.round(doc.accuracy)}% over ${doc.decisions.length} ${doc.decisions.length === 1 ? "decision" : "decisions"}; `,
    doc.game === "mille" ? `${fmtLoss(doc.points_lost)} points expected lost in all.` : doc.unit === "points" ? `${fmtLoss(doc.points_lost)} points expected lost in all.` : `${fmtLoss(doc.win_lost)} percentage points of winning lost in all${doc.points_lost ? `, and ${fmtLoss(doc.points_lost)} expected points` : ""}.`,
  );
  if (!doc.decisions.length) {
    body.replaceChildren(summary, el("p", { class: "empty" }, `${who} had no decision to review in this game.`));
    return;
  }
  const select = el(
    "select",
    { id: "review-decision" },
    doc.decisions.map((d, i) => el("option", { value: String(i) }, `${i + 1}. ${d.label}: ${d.played}${d.mark === "best" || d.mark === "good" ? "" : ` (${d.mark})`}`)),
  );
  select.addEventListener("change", () => toDecision(Number(select.value), false));
  const button = (label, id, f, keys) => el("button", { type: "button", id, onclick: f, "aria-keyshortcuts": keys }, label);
  body.replaceChildren(
    summary,
    doc.hands?.length ? handsTable(doc) : null,
    reviewChart(doc),
    el(
      "div",
      { class: "review-bar", role: "group", "aria-label": "Decisions" },
      button("Previous decision", "review-prev", () => toDecision(review.at - 1, false), "P"),
      el("span", { class: "picker" }, el("label", { for: "review-decision" }, "Decision"), select),
      button("Next decision", "review-next", () => toDecision(review.at + 1, false), "N"),
    ),
    el("div", { class: "review-decision", id: "review-now", "aria-live": "polite" }),
    el("p", { class: "small keys-line" }, "Keys: N and P go to the next and previous decision; the replay's keys still step move by move."),
    worstList(doc),
  );
}

function handsTable(doc) {
  return el(
    "div",
    { class: "scroll", tabindex: "0", role: "region", "aria-label": "Hands" },
    el(
      "table",
      { class: "data review-hands" },
      el("caption", {}, "Hand by hand"),
      el("thead", {}, el("tr", {}, ["Hand", "Decisions", "Points lost", "Accuracy"].map((h, i) => el("th", { scope: "col", class: i ? "num" : null }, h)))),
      el(
        "tbody",
        {},
        doc.hands.map((h) => el("tr", {}, el("th", { scope: "row" }, h.label), el("td", { class: "num" }, String(h.decisions)), el("td", { class: "num" }, fmtLoss(h.points_lost)), el("td", { class: "num" }, `${Math.round(h.accuracy)}%`))),
      ),
    ),
  );
}

/** The points lost at each decision as bars (a blunder's height at the
 *  top line), the thresholds drawn across, the decision looked at
 *  outlined; in words for those who cannot see it. */
function reviewChart(doc) {
  const ds = doc.decisions;
  const W = 1000;
  const H = 160;
  const top = 12;
  const base = H - 14;
  const cap = 1.5;
  const bw = Math.max(2, Math.min(24, (W - 20) / ds.length));
  const x = (i) => 10 + i * ((W - 20) / ds.length);
  const h = (d) => {
    const blunder = d.thresholds?.[2] || 1;
    return ((base - top) * Math.min(cap, d.loss / blunder)) / cap;
  };
  const lineAt = (share) => base - ((base - top) * share) / cap;
  const counts = ["inaccuracy", "mistake", "blunder"].map((m) => [m, ds.filter((d) => d.mark === m).length]);
  const words = `Loss at each of ${ds.length} decisions: ${counts.map(([m, c]) => `${c} ${m}${c === 1 ? "" : m === "mistake" ? "s" : m === "blunder" ? "s" : "ies"}`.replace("inaccuracyies", "inaccuracies")).join(", ")}; the worst lost ${fmtLoss(Math.max(...ds.map((d) => d.loss)))} ${unitShort(doc.unit)}.`;
  const first = ds[0].thresholds || [1, 2, 3];
  const mixed = ds.some((d) => d.unit !== ds[0].unit);
  return el(
    "figure",
    { class: "review-chart" },
    el(
      "svg:svg",
      { class: "chart losses", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": words, id: "review-chart" },
      ["inaccuracy", "mistake", "blunder"].map((m, k) =>
        el("svg:line", { class: `threshold ${m}`, x1: 0, x2: W, y1: lineAt(first[k] / first[2]).toFixed(1), y2: lineAt(first[k] / first[2]).toFixed(1) }),
      ),
      el("svg:line", { class: "axis", x1: 0, y1: base, x2: W, y2: base }),
      ds.map((d, i) =>
        el(
          "svg:rect",
          { class: `bar ${d.mark}`, "data-i": String(i), x: x(i).toFixed(1), y: (base - Math.max(1, h(d))).toFixed(1), width: Math.max(1, bw - 1).toFixed(1), height: Math.max(1, h(d)).toFixed(1) },
          el("svg:title", {}, `${i + 1}. ${d.label}: ${d.played}, ${d.mark}, ${fmtLoss(d.loss)} ${unitShort(d.unit)} lost`),
        ),
      ),
      el("svg:rect", { class: "cursor", id: "review-cursor", x: x(0).toFixed(1), y: top - 4, width: Math.max(2, bw).toFixed(1), height: base - top + 6 }),
      el("svg:text", { x: 2, y: 10 }, `${mixed ? "" : `${fmtLoss(first[2] * cap)} ${unitShort(ds[0].unit)}`}`),
    ),
    el("figcaption", { class: "small" }, `Points lost per decision, in order (the lines: inaccuracy ${fmtLoss(first[0])}, mistake ${fmtLoss(first[1])}, blunder ${fmtLoss(first[2])} ${unitShort(ds[0].unit)}${mixed ? ", where a decision is valued in points the bar is scaled by its own thresholds" : ""}). Click a bar to go to its decision.`),
  );
}

function worstList(doc) {
  if (!doc.worst?.length) return el("p", { class: "empty" }, "No decision lost anything worth a mark.");
  return el(
    "section",
    { class: "review-worst", "aria-labelledby": "worst-title" },
    el("h3", { id: "worst-title" }, doc.worst.length === 1 ? "The worst decision" : `The ${doc.worst.length} worst decisions`),
    el(
      "ol",
      {},
      doc.worst.map((w) => {
        const d = doc.decisions[w.decision];
        return el(
          "li",
          {},
          el("button", { type: "button", class: "link", onclick: () => toDecision(w.decision, true) }, `${d.label}: ${d.played}`),
          ` (${d.mark}, ${fmtLoss(d.loss)} ${unitShort(d.unit)}). `,
          w.sentence,
        );
      }),
    ),
  );
}

/** Shows decision `i`: the replay at its step, the two moves and the cost. */
function toDecision(i, focus) {
  const ds = review.doc?.decisions;
  if (!ds?.length) return;
  review.at = Math.max(0, Math.min(ds.length - 1, i));
  go(stepOf(ds[review.at]));
  reviewTold();
  if (focus) document.getElementById("review-now")?.focus();
}

/** The decision line and the chart's cursor follow the replay. */
function reviewTold() {
  const doc = review.doc;
  const now = document.getElementById("review-now");
  if (!doc || !now || !doc.decisions.length || replay.seat !== doc.seat) return;
  const d = doc.decisions[review.at];
  const here = stepOf(d) === replay.at;
  const cost =
    d.same || d.mark === "best"
      ? el("span", { class: `mark ${d.mark}` }, d.same ? "The preferred move." : "As good as the preferred move.")
      : el("span", { class: `mark ${d.mark}` }, `${d.mark[0].toUpperCase()}${d.mark.slice(1)}: ${fmtLoss(d.loss)}${d.stderr ? ` ± ${fmtLoss(d.stderr)}` : ""} ${unitShort(d.unit)} lost.`);
  now.setAttribute("tabindex", "-1");
  now.replaceChildren(
    el("p", { class: "review-at" }, `Decision ${review.at + 1} of ${doc.decisions.length} · ${d.label}`, el("span", { class: "small" }, here ? " · the board just after it (Back: just before)" : " · the replay has moved on (Decision goes back to it)")),
    el(
      "dl",
      { class: "review-moves" },
      el("dt", {}, "Played"),
      el("dd", { class: `played ${d.mark}` }, d.played),
      el("dt", {}, "Preferred"),
      el("dd", { class: "best" }, d.best),
      el("dt", {}, "Verdict"),
      el("dd", {}, cost),
    ),
  );
  const sel = document.getElementById("review-decision");
  if (sel) sel.value = String(review.at);
  const prev = document.getElementById("review-prev");
  const next = document.getElementById("review-next");
  if (prev) prev.disabled = review.at === 0;
  if (next) next.disabled = review.at === doc.decisions.length - 1;
  const a = document.activeElement;
  if (a instanceof HTMLButtonElement && a.disabled) (review.at === 0 ? next : prev)?.focus();
  const cursor = document.getElementById("review-cursor");
  const bar = document.querySelector(`#review-chart rect.bar[data-i="${review.at}"]`);
  if (cursor && bar) cursor.setAttribute("x", bar.getAttribute("x"));
  for (const b of document.querySelectorAll("#review-chart rect.bar.now")) b.classList.remove("now");
  bar?.classList.add("now");
}

document.addEventListener("click", (e) => {
  const bar = e.target instanceof Element ? e.target.closest("#review-chart rect.bar") : null;
  if (bar) toDecision(Number(bar.getAttribute("data-i")), false);
});

document.addEventListener("keydown", (e) => {
  if (!review.doc?.decisions.length || e.altKey || e.ctrlKey || e.metaKey) return;
  const t = e.target;
  if (t instanceof HTMLElement && (t.closest("input, select, textarea, dialog") || t.isContentEditable)) return;
  const k = e.key.toLowerCase();
  if (k !== "n" && k !== "p") return;
  e.preventDefault();
  toDecision(review.at + (k === "n" ? 1 : -1), false);
});

window.addEventListener("hashchange", () => {
  const seat = reviewAsked();
  if (seat !== null && seat !== review.seat) startReview(seat);
  else if (location.hash === "#review") document.getElementById("review-title")?.focus();
});

// ---- the route ----------------------------------------------------------

/** The header's Arena link shows when there is an arena to see. */
async function arenaNav() {
  if ((await arenas()).length) document.getElementById("nav-arena")?.removeAttribute("hidden");
}

async function route() {
  arenaNav();
  const path = location.pathname;
  const params = new URLSearchParams(location.search);
  let m;
  if (path === "/ladder" || path === "/ladder/") return ladderPage();
  if (path === "/arena" || path === "/arena/") return arenaPage();
  if ((m = path.match(/^\/players\/([^/]+)\/?$/))) {
    let name;
    try {
      name = decodeURIComponent(m[1]);
    } catch {
      return show("Player", el("h1", {}, "Player"), problem("This address does not name a player."));
    }
    return playerPage(name);
  }
  if ((m = path.match(/^\/games\/([^/]+)\/?$/))) return gamePage(m[1], params.get("code"));
  show("Not found", el("h1", {}, "Not found"), el("p", {}, el("a", { href: "/ladder" }, "The ladder")));
}

route();
