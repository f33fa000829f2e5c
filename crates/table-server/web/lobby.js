// The lobby: every table of both games with its seats (and, at a rated
// table, each seated player's rating), the seats this name holds, how the
// tables it had left ended, and the form that opens a new table (game,
// rules, seats, computer levels, rated or casual, private with an
// invitation link).

import { el, announce, ratingLabel } from "./ui.js";

const MILLE_RULES = [
  { id: "bsd", label: "BSD mille (2 players)", players: [2] },
  { id: "classic", label: "Published rules (2 to 6 players, teams for 4 and 6)", players: [2, 3, 4, 6] },
  { id: "milebones", label: "Mile Bones 2.1 (2 players)", players: [2] },
];
const CUBES_GAMES = [
  { id: "standard", label: "Standard (to 10,000)" },
  { id: "blitz", label: "Blitz (a short game)" },
];
const CUBES_JOKERS = [
  { id: "never", label: "no jokers" },
  { id: "sometimes", label: "jokers sometimes" },
  { id: "always", label: "jokers" },
];
/** The level other seats start at: a newcomer can open a table and play at once. */
const DEFAULT_LEVEL = { mille: "classic", cubes: "steady" };

/** A seat in words: who sits there. */
export function describeSeat(s) {
  if (!s) return "";
  if (s.kind === "computer") return `computer (${s.level})`;
  if (!s.player) return "free";
  let t = s.player;
  // An invited bot is not "not connected": it has not come yet (its
  // badge says so).
  if (s.invited) return t;
  if (s.away) t += ` (away: computer ${s.level || ""})`.replace(" )", ")");
  else if (!s.connected) t += " (not connected)";
  return t;
}

/** A bot's badge: "bot" in view, who runs it in a tip and to a screen
 *  reader (when known: `owner`). */
export function botBadge(owner) {
  const who = owner ? `a bot run by ${owner}` : "a bot";
  return el("span", { class: "badge bot", title: who }, el("span", { "aria-hidden": "true" }, "bot"), el("span", { class: "sr-only" }, ` (${who})`));
}

/** A seat as the lobby lists it: who sits there and its badges (a bot,
 *  invited and not yet come). `owners`: bot name -> its owner. */
export function seatNodes(s, owners = new Map()) {
  return [
    describeSeat(s),
    s?.bot && s.player ? botBadge(owners.get(s.player)) : null,
    s?.invited ? el("span", { class: "badge invited" }, "invited") : null,
  ];
}

/** The team of a seat in Mille Bornes: 4 players are 1+3 against 2+4, 6
 *  players 1+4, 2+5 and 3+6. */
export function milleTeam(seat, players) {
  if (players === 4) return seat % 2;
  if (players === 6) return seat % 3;
  return seat;
}

/** A seat's rating at a rated table: "1540" in view, "rating 1540,
 *  provisional" to a screen reader; nothing when the server sends none. */
function ratingNode(s) {
  const label = ratingLabel(s.rating);
  if (!label) return null;
  return el(
    "span",
    { class: `rating${s.rating.provisional ? " provisional" : ""}` },
    " ",
    el("span", { "aria-hidden": "true" }, label),
    el("span", { class: "sr-only" }, `rating ${s.rating.rating}${s.rating.provisional ? ", provisional" : ""}`),
  );
}

export class Lobby {
  /** `endings()`: the tables this name had left that ended meanwhile
   *  (shown until `dismissEndings()`). */
  constructor(root, client, { open, endings = () => [], dismissEndings = () => {} }) {
    this.root = root;
    this.client = client;
    this.open = open;
    this.endings = endings;
    this.dismissEndings = dismissEndings;
    this.list = [];
    /** The bots connected lately, by name: who runs them. */
    this.owners = new Map();
    this.botsAsked = 0;
    this.offBots = client.on("bots", (msg) => this.botsCame(msg.bots || []));
    this.build();
    this.refresh();
    // Nobody pushes the lobby: it asks again every few seconds while shown.
    this.timer = setInterval(() => {
      if (!this.root.contains(this.tableBox)) {
        clearInterval(this.timer);
        return;
      }
      this.refresh();
    }, 3000);
    this.offWelcome = client.on("welcome", () => this.refresh());
  }

  /** Stops asking and listening: the lobby is no longer shown. */
  destroy() {
    clearInterval(this.timer);
    this.offWelcome();
    this.offBots();
  }

  /** Asks the server for the bots connected now (answered by `bots`). */
  askBots() {
    this.botsAsked = Date.now();
    this.client.send({ type: "bots" });
  }

  /** The answer to `bots`: the owners in the lobby's lines, and the
   *  form's list if it is open. */
  botsCame(bots) {
    let changed = false;
    for (const b of bots) {
      if (this.owners.get(b.name) !== b.owner) changed = true;
      this.owners.set(b.name, b.owner);
    }
    this.bots = bots;
    this.onBots?.(bots);
    if (changed && this.list.length) this.render();
  }

  refresh() {
    this.client.send({ type: "list" });
  }

  build() {
    const held = this.client.welcome?.seats || [];
    this.heldBox = el("div", { class: "held" });
    this.showHeld(held);
    this.endBox = el("div", { class: "endings-box" });
    this.showEndings();
    this.tableBox = el("div", { class: "table-list", "aria-live": "off" });
    this.formBox = el("div", { class: "new-table" });
    this.root.replaceChildren(
      el("h1", { tabindex: "-1" }, "Tables"),
      this.endBox,
      this.heldBox,
      el(
        "p",
        { class: "actions" },
        el("button", { type: "button", class: "primary", id: "new-mille", onclick: () => this.form("mille") }, "New Mille Bornes table"),
        " ",
        el("button", { type: "button", id: "new-cubes", onclick: () => this.form("cubes") }, "New cubes table"),
        " ",
        el("a", { href: "#/scores", class: "button" }, "Scores"),
        " ",
        el("a", { href: "/ladder", class: "button", id: "ladder-link" }, "Ladder"),
      ),
      this.formBox,
      this.tableBox,
    );
  }

  /** How the tables this name had left ended while it was away (the
   *  server's `ended`), until dismissed; said once when it comes. */
  showEndings() {
    const list = this.endings();
    if (!list.length) {
      this.endBox.replaceChildren();
      this.told = 0;
      return;
    }
    const gameName = (g) => (g === "cubes" ? "cubes" : "Mille Bornes");
    const dismiss = el(
      "button",
      {
        type: "button",
        id: "endings-dismiss",
        onclick: () => {
          this.dismissEndings();
          this.showEndings();
          this.root.querySelector("h1")?.focus();
        },
      },
      "Dismiss",
    );
    this.endBox.replaceChildren(
      el(
        "section",
        { class: "panel endings", "aria-labelledby": "endings-title" },
        el("h2", { id: "endings-title" }, list.length === 1 ? "A table you had left has ended" : "Tables you had left have ended"),
        el(
          "ul",
          {},
          list.map((e) =>
            el("li", { class: e.abandoned ? "abandoned" : null }, el("strong", {}, `Table ${e.table} (${gameName(e.game)}, ${e.ruleset}): `), e.message),
          ),
        ),
        el("p", { class: "actions" }, dismiss),
      ),
    );
    if (list.length > (this.told || 0)) {
      announce(`While you were away: ${list.slice(this.told || 0).map((e) => `table ${e.table}: ${e.message}`).join(" ")}`);
      this.told = list.length;
    }
  }

  showHeld(held) {
    if (!held.length) {
      this.heldBox.replaceChildren();
      return;
    }
    this.heldBox.replaceChildren(
      el("h2", {}, "Your seats"),
      el(
        "ul",
        {},
        held.map((s) =>
          el(
            "li",
            {},
            el(
              "button",
              { type: "button", class: "primary", onclick: () => this.open(s.table, {}) },
              `Back to table ${s.table} (${s.game === "cubes" ? "cubes" : "Mille Bornes"}, seat ${s.seat + 1})`,
            ),
          ),
        ),
      ),
    );
  }

  /** The answer to `list`. */
  tables(list) {
    // Drawn again only when something changed: a redraw would move a
    // screen reader's place and the focus.
    const text = JSON.stringify(list);
    if (text === this.shown) return;
    this.shown = text;
    this.list = list;
    // A bot whose owner is not known yet: ask who runs it (not more
    // than every few seconds, and only then).
    const unknown = list.some((t) => t.seats.some((s) => s.bot && s.player && !this.owners.has(s.player)));
    if (unknown && Date.now() - this.botsAsked > 10000) this.askBots();
    this.render();
  }

  /** An update's seats: the lobby line follows (when shown). */
  seatsChanged(table, seats) {
    const t = this.list.find((x) => x.id === table);
    if (t) {
      t.seats = seats;
      this.render();
    }
  }

  render() {
    const me = this.client.name;
    const games = [
      ["mille", "Mille Bornes"],
      ["cubes", "cubes"],
    ];
    const focusId = this.tableBox.contains(document.activeElement) ? document.activeElement.id : "";
    const parts = [];
    for (const [game, title] of games) {
      const rows = this.list.filter((t) => t.game === game && t.status !== "over");
      parts.push(el("h2", { tabindex: "-1" }, `${title} tables`));
      if (!rows.length) {
        parts.push(el("p", { class: "empty" }, `No ${title} table yet: open one with “New ${title} table”.`));
        continue;
      }
      parts.push(
        el(
          "table",
          { class: "tables" },
          el("caption", { class: "sr-only" }, `${title} tables`),
          // The last column's header is for screen readers: its buttons speak for themselves in view.
          el("thead", {}, el("tr", {}, ["Table", "Rules", "Seats", "State"].map((h) => el("th", { scope: "col" }, h)), el("th", { scope: "col" }, el("span", { class: "sr-only" }, "Actions")))),
          el(
            "tbody",
            {},
            rows.map((t) => {
              const mine = t.seats.findIndex((s) => s.player === me);
              const free = t.seats.some((s) => s.kind === "human" && !s.player);
              // The server pauses a game nobody is at (see the help).
              const people = t.seats.filter((s) => s.kind === "human" && s.player);
              const paused = t.status === "playing" && people.length > 0 && people.every((s) => !s.connected);
              const state = t.status === "waiting" ? "waiting for players" : paused ? "paused: nobody is at the table" : "playing";
              const watchers = t.spectators ? `, ${t.spectators} watching` : "";
              const buttons = [];
              if (mine >= 0) {
                buttons.push(el("button", { type: "button", class: "primary", id: `back-${t.id}`, onclick: () => this.open(t.id, {}) }, `Back to my seat`));
              } else if (free) {
                buttons.push(el("button", { type: "button", class: "primary", id: `join-${t.id}`, "aria-label": `Join table ${t.id}`, onclick: () => this.open(t.id, {}) }, "Join"));
              }
              buttons.push(
                " ",
                el("button", { type: "button", id: `watch-${t.id}`, "aria-label": `Watch table ${t.id}`, onclick: () => this.open(t.id, { watch: true }) }, "Watch"),
              );
              return el(
                "tr",
                {},
                el("th", { scope: "row" }, `${t.id}${t.private ? " (private)" : ""}`),
                el("td", {}, t.ruleset, t.rated ? null : el("span", { class: "badge casual" }, "casual"), t.arena ? el("span", { class: "badge" }, "arena") : null),
                el(
                  "td",
                  {},
                  el(
                    "ol",
                    { class: "seats" },
                    t.seats.map((s) => el("li", { class: s.player === me ? "me" : null }, seatNodes(s, this.owners), t.rated ? ratingNode(s) : null)),
                  ),
                ),
                el("td", {}, state + watchers),
                el("td", { class: "row-actions" }, buttons),
              );
            }),
          ),
        ),
      );
    }
    this.tableBox.replaceChildren(...parts);
    if (focusId) {
      // The same button, or its row's other one, or the list's heading.
      const again = document.getElementById(focusId) || document.getElementById(focusId.replace(/^(join|back)-/, (m) => (m === "join-" ? "back-" : "join-")));
      (again || this.tableBox.querySelector("h2"))?.focus();
    }
  }

  /** The form for a new table of `game`. */
  form(game) {
    const levels = this.client.welcome?.games?.find((g) => g.game === game)?.levels || [];
    const box = this.formBox;
    const problem = el("p", { class: "problem", role: "alert", id: "create-problem" });
    const seatsBox = el("fieldset", { class: "seat-choices" });
    let rules;
    let players;
    let kind;
    let jokers;
    const stacking = el("input", { type: "checkbox", id: "stacking" });
    const priv = el("input", { type: "checkbox", id: "private" });
    const rated = el("input", { type: "radio", name: "rated", id: "rated", value: "rated", checked: true });
    const casual = el("input", { type: "radio", name: "rated", id: "casual", value: "casual" });

    // "Play against…": the bots connected now, one of which takes seat 2
    // (invited when the table opens); or the seats as chosen below.
    const botBox = el("fieldset", { class: "bot-choice", id: "bot-choice" });
    /** The bot chosen to play against, or "". */
    const chosenBot = () => botBox.querySelector("input[name=opponent]:checked")?.value || "";
    const botList = (bots) => {
      const keep = chosenBot();
      // The focus stays where it was (Look again, a bot's radio).
      const focused = botBox.contains(document.activeElement) ? document.activeElement.id : "";
      const legend = el("legend", {}, "Play against…");
      const radio = (id, value, label, more) => {
        const input = el("input", { type: "radio", name: "opponent", id, value, checked: value === keep || (!value && !bots.some((b) => b.name === keep)) });
        input.addEventListener("change", seatRows);
        return el("li", { class: "check" }, input, el("label", { for: id }, label, more));
      };
      const again = el("button", { type: "button", id: "bots-again", onclick: () => ask() }, "Look again");
      if (bots === null) {
        botBox.replaceChildren(legend, el("p", { class: "small", role: "status" }, "Looking for the bots connected now…"));
        return;
      }
      const items = [radio("opponent-seats", "", "The seats below: people and computers")];
      bots.forEach((b, i) =>
        items.push(
          radio(`opponent-bot-${i}`, b.name, [el("strong", {}, b.name), " ", el("span", { class: "badge bot" }, "bot")], [
            el("span", { class: "small bot-owner" }, ` by ${b.owner}`),
            b.description ? el("span", { class: "small bot-description" }, `: ${b.description}`) : null,
          ]),
        ),
      );
      botBox.replaceChildren(
        legend,
        el("ul", { class: "bot-list" }, items),
        el("p", { class: "small", role: "status" }, bots.length ? `${bots.length} ${bots.length === 1 ? "bot is" : "bots are"} connected: a bot takes seat 2 and accepts or declines the invitation.` : "No bot is connected to this server now.", " ", again),
      );
      if (focused) document.getElementById(focused)?.focus();
      seatRows();
    };
    let listed = null;
    const ask = () => {
      listed = null;
      this.onBots = (bots) => {
        // Drawn again only when the bots changed (or asked again): a
        // redraw would move the focus out of the list.
        const text = JSON.stringify(bots);
        if (!box.contains(botBox) || text === listed) return;
        listed = text;
        botList(bots);
      };
      this.askBots();
    };

    const seatRows = () => {
      const n = Number(players.value);
      const old = Object.fromEntries([...seatsBox.querySelectorAll("select")].map((s) => [s.id, s.value]));
      const legend = el("legend", {}, "Seats");
      const rows = [];
      const bot = chosenBot();
      for (let i = 0; i < n; i++) {
        const id = `seat-${i}`;
        if (i === 1 && bot) {
          rows.push(el("div", { class: "seat-row" }, el("span", { class: "seat-label" }, "Seat 2"), el("span", { id, "data-bot": bot }, bot, " ", botBadge(this.owners.get(bot)), el("span", { class: "small" }, " invited when the table opens"))));
          continue;
        }
        const options = [el("option", { value: "human" }, i === 0 ? "you" : "a person")];
        for (const l of levels) options.push(el("option", { value: `computer:${l}` }, `computer: ${l}`));
        const select = el("select", { id, disabled: i === 0 }, options);
        select.value = i === 0 ? "human" : old[id] || `computer:${levels.includes(DEFAULT_LEVEL[game]) ? DEFAULT_LEVEL[game] : levels[0]}`;
        let team = "";
        if (game === "mille" && (n === 4 || n === 6)) team = ` (team ${milleTeam(i, n) + 1})`;
        rows.push(el("div", { class: "seat-row" }, el("label", { for: id }, `Seat ${i + 1}${team}`), select));
      }
      seatsBox.replaceChildren(legend, ...rows);
    };

    let setup;
    if (game === "mille") {
      rules = el(
        "select",
        { id: "rules" },
        MILLE_RULES.map((r) => el("option", { value: r.id }, r.label)),
      );
      players = el("select", { id: "players" });
      const fillPlayers = () => {
        const r = MILLE_RULES.find((x) => x.id === rules.value);
        const keep = Number(players.value) || 2;
        players.replaceChildren(...r.players.map((p) => el("option", { value: String(p) }, p === 4 ? "4 (two teams)" : p === 6 ? "6 (three teams)" : String(p))));
        players.value = String(r.players.includes(keep) ? keep : r.players[0]);
        stacking.disabled = rules.value !== "classic";
        if (stacking.disabled) stacking.checked = false;
        seatRows();
      };
      rules.addEventListener("change", fillPlayers);
      players.addEventListener("change", seatRows);
      setup = el(
        "div",
        { class: "fields" },
        el("label", { for: "rules" }, "Rules"),
        rules,
        el("label", { for: "players" }, "Players"),
        players,
        el("span", { class: "check" }, stacking, el("label", { for: "stacking" }, "Stacking variant (hazards on hazards)")),
      );
      fillPlayers();
    } else {
      kind = el("select", { id: "kind" }, CUBES_GAMES.map((g) => el("option", { value: g.id }, g.label)));
      jokers = el("select", { id: "jokers" }, CUBES_JOKERS.map((g) => el("option", { value: g.id }, g.label)));
      players = el("select", { id: "players" }, [2, 3, 4, 5, 6].map((n) => el("option", { value: String(n) }, String(n))));
      players.addEventListener("change", seatRows);
      setup = el(
        "div",
        { class: "fields" },
        el("label", { for: "kind" }, "Game"),
        kind,
        el("label", { for: "jokers" }, "Dice"),
        jokers,
        el("label", { for: "players" }, "Players"),
        players,
      );
      seatRows();
    }

    const submit = async (e) => {
      e.preventDefault();
      const button = box.querySelector("#create");
      if (button.disabled) return;
      button.disabled = true;
      problem.textContent = "";
      const seats = [...seatsBox.querySelectorAll("select, [data-bot]")].map((s) =>
        s.dataset.bot ? { kind: "bot", name: s.dataset.bot } : s.value === "human" ? { kind: "human" } : { kind: "computer", level: s.value.slice("computer:".length) },
      );
      const msg = {
        type: "create",
        game,
        setup:
          game === "mille"
            ? { rules: rules.value, players: Number(players.value), stacking: stacking.checked }
            : { game: kind.value, jokers: jokers.value },
        seats,
        private: priv.checked,
        sit: 0,
        rated: rated.checked,
      };
      try {
        const created = await this.client.request(msg, "created");
        const code = created.code;
        box.replaceChildren();
        announce(`Table ${created.table.id} opened.`);
        this.open(created.table.id, { code });
      } catch (err) {
        problem.textContent = err.message;
        button.disabled = false;
      }
    };

    box.replaceChildren(
      el(
        "form",
        { class: "panel", onsubmit: submit, "aria-labelledby": "form-title" },
        el("h2", { id: "form-title" }, game === "mille" ? "New Mille Bornes table" : "New cubes table"),
        setup,
        botBox,
        seatsBox,
        el(
          "fieldset",
          { class: "rated-choice" },
          el("legend", {}, "Result"),
          el("span", { class: "check" }, rated, el("label", { for: "rated" }, "Rated: the result moves the players' ratings")),
          el("span", { class: "check" }, casual, el("label", { for: "casual" }, "Casual: no ratings")),
        ),
        el("span", { class: "check" }, priv, el("label", { for: "private" }, "Private: not listed; people join with its invitation link")),
        problem,
        el(
          "p",
          { class: "actions" },
          el("button", { type: "submit", class: "primary", id: "create" }, "Open the table"),
          " ",
          el("button", { type: "button", onclick: () => box.replaceChildren() }, "Cancel"),
        ),
      ),
    );
    botList(null);
    ask();
    box.querySelector("select")?.focus();
  }
}
