// The Mille Bornes table, played as Mile Bones was: every side's tableau
// (the viewer's first, then the hand with the discard pile, then the
// others'), the draw pile, a status bar, the score window. Cards are
// played by dragging them (pointer events: mouse, pen, touch), by clicking
// a card then where it goes, by double-click (smart play) or with the
// keys of the terminal game. The page knows no rule: what may be played
// comes from `observation.legal`, and a refused move shows the server's
// reason next to its card.

import { el, svg, announce, dialog, reducedMotion, tips, sounds, leavingHelp } from "./ui.js";
import { CARDS, HAND_ORDER, cardSvg, cardBackSvg, emptySlotSvg } from "./cards.js";

const SORT_KEY = "mille-sort-hand";
const SCORE_KEY = "mille-score-window";
const SAFETIES = ["extra_tank", "puncture_proof", "driving_ace", "right_of_way"];
const MILES = ["25", "50", "75", "100", "200"];
const RULES = { bsd: "BSD rules", classic: "published rules", milebones: "Mile Bones rules" };
const GAME_POINTS = 5000;
const DRAG_START = 6; // px a pointer moves before a press becomes a drag

/** The rows of the score window, in Mile Bones' order. */
const SCORE_ROWS = [
  ["miles", "Milestones (miles)"],
  ["safeties", "Each safety"],
  ["all_safeties", "All 4 safeties"],
  ["coups", "Each coup fourré"],
  ["trip", "Trip completed"],
  ["safe_trip", "Safe trip"],
  ["delayed_action", "Delayed action"],
  ["extension", "Extension"],
  ["shut_out", "Shut-out"],
];

const HELP = {
  battle: [
    "Battle pile",
    "Its top card says whether the side may drive. Every hand starts stopped: the side needs a Go (or the Right of Way safety) here before it can play miles.",
    "Opponents play Stop, Out of Gas, Flat Tire and Accident on it. Answer with the remedy (Go, Gasoline, Spare Tire, Repairs) or the safety; after a remedy other than Go you need a Go again, unless you have Right of Way.",
    "Drop a remedy, a Go or a safety on your own battle pile to play it (or click the card, then the pile).",
  ],
  speed: [
    "Speed pile",
    "A Speed Limit played here keeps the side to 25- and 50-mile cards until it plays an End of Limit on it. Right of Way ends speed limits for the rest of the hand.",
    "Drop an End of Limit on your own speed pile to lift a limit.",
  ],
  safeties: [
    "Safeties",
    "The four safeties (Extra Tank, Puncture Proof, Driving Ace, Right of Way) the side has played. Each protects against its hazards for the rest of the hand and is worth 100 points; all four, 300 more. A safety may be played at any time of your turn, and you then play again.",
    "Coup fourré: when an opponent plays a hazard on you and you hold its safety, play the safety at once, before drawing (click it, double-click it, or drop it on your battle pile). It is outlined in red, is worth 300 more points, you draw to make up your hand and it is your turn. Clicking the draw pile lets the chance pass.",
  ],
  distance: [
    "Miles",
    "The miles the side has travelled, out of the trip (700 miles, or 1000 after an extension), and the distance cards played, by value.",
    "Drop a distance card here when you can go. Under a Speed Limit only 25 and 50 may be played; at most two 200s a hand; the trip must end exactly on its goal.",
  ],
  draw: [
    "Draw pile",
    "Click it (or press P) at the start of your turn to pick a card; the status bar counts the cards left. It reads Out once empty: then play or discard without drawing, until every hand is played out. Dimmed, it shows a pick sent that the table has not answered yet.",
    "When a hazard was just played on you and you hold its safety, clicking the draw pile lets the coup fourré chance pass, then draws.",
  ],
  hand: [
    "Your hand",
    "Your cards, numbered for the keys. After your draw, play or discard one of them to end your turn.",
    "Drag a card to where it goes and let go; or click it (it rises) and click the place; double-click plays it where it can go, else discards it. The places that take the selected card are outlined. Dropping it on the draw pile or elsewhere puts it back.",
    "With the keyboard: Tab (or the arrows) to a card, Enter selects it, then Tab to a place and Enter plays it there. Sort keeps the hand in order (O).",
  ],
  discard: [
    "Discard pile",
    "Drop a card here to throw it away; that ends your turn. It shows the last card discarded. Under BSD rules a safety cannot be discarded; under the others you are asked first.",
  ],
  opponent: [
    "An opponent's side",
    "Its battle pile, speed pile, safeties and miles, and how many cards each of its players holds (never which).",
    "Drop a hazard on its battle pile (Stop, Out of Gas, Flat Tire, Accident: only while it can go) or a Speed Limit on its speed pile. With several opponents a double-click aims at the one leading in miles.",
  ],
  status: [
    "Status bar",
    "The cards left in the draw pile, whose turn it is, the rules, the trip's length, the hand's number, the games each side has won and the points so far. A game ends when a side reaches 5000 points.",
  ],
  cards: [
    "The cards",
    "Distance cards (25 to 200 miles): play them on your miles when you can go, after a Go or with Right of Way. Under a Speed Limit only 25 and 50.",
    "Hazards (Out of Gas, Flat Tire, Accident, Speed Limit, Stop): play them on an opponent's battle pile (a Speed Limit on its speed pile) to stop or slow it down. Its remedy or its safety answers each.",
    "Remedies (Gasoline, Spare Tire, Repairs, End of Limit, Go): play them on your own battle pile (End of Limit on your speed pile) to answer the hazard each matches. They last until the next hazard.",
    "Safeties (Extra Tank, Puncture Proof, Driving Ace, Right of Way): play them on your battle pile at any time of your turn; each protects for the rest of the hand and you play again. Played at once against its hazard, it is a coup fourré.",
  ],
  scores: [
    "Score window",
    "This hand's points item by item for every side (W shows or hides it), the hand's total and the game's. Miles count one point a mile; each safety 100, all four 300 more; each coup fourré 300; completing the trip 400, 300 more without a 200 (safe trip) and 300 more once the draw pile is out (delayed action); an extension 200; a shut-out (the others played no miles) 500.",
  ],
};

const KEYS = [
  ["P", "pick a card from the draw pile (during a coup fourré chance: let it pass, then pick)"],
  ["U then 1–7, then Enter or Space", "use card n: play it where it can go (never discards)"],
  ["D then 1–7, then Enter or Space", "discard card n"],
  ["Enter", "on a card: select it; on a place: play the selected card there"],
  ["← →", "move between the cards of your hand"],
  ["Escape", "cancel the selection or a U/D"],
  ["O", "sort your hand, or not (remembered)"],
  ["W", "show or hide the score window (remembered)"],
  ["Y", "after a hand: ready for the next one"],
  ["Q", "leave the table (your seat stays yours; asks first while the game is on)"],
  ["F1, ?", "this help"],
];

/** The finished game's page, opened at its review (of the viewer's seat
 *  when it sat at the table): `/games/ID#review`. */
function reviewHref(ctx) {
  const code = ctx.code ? `?code=${encodeURIComponent(ctx.code)}` : "";
  const seat = Number.isInteger(ctx.seat) ? `-${ctx.seat}` : "";
  return `/games/${encodeURIComponent(ctx.table)}${code}#review${seat}`;
}

function load(key, fallback) {
  try {
    const v = localStorage.getItem(key);
    return v === null ? fallback : v === "1";
  } catch {
    return fallback;
  }
}

function save(key, value) {
  try {
    localStorage.setItem(key, value ? "1" : "0");
  } catch {
    // Storage refused (a private window): the choice lasts as long as the page.
  }
}

// Sentences start with a capital, but names stay as their players wrote them.
const cap = (s) => (/^(you|team)/.test(s) ? s.charAt(0).toUpperCase() + s.slice(1) : s);

/** A card's name in words ("Speed Limit", "25 miles"). */
export function cardName(id) {
  const c = CARDS[id];
  if (!c) return String(id);
  return c.kind === "distance" ? `${c.miles} miles` : c.name;
}

/** Which pile of a side a card goes on. */
function pileOf(id) {
  const c = CARDS[id];
  if (!c) return "battle";
  if (c.kind === "distance") return "distance";
  if (c.kind === "safety") return "safeties";
  if (id === "speed_limit" || id === "end_of_limit") return "speed";
  return "battle";
}

function miles(team) {
  return team.distance.reduce((m, c) => m + (CARDS[c]?.miles || 0), 0);
}

function total(score) {
  return SCORE_ROWS.reduce((t, [k]) => t + (score?.[k] || 0), 0);
}

const cardNode = (id, opts) => svg(cardSvg(id, opts));

/** Makes `old` (in the page) like `neu` (just built), keeping every node
 *  that stays: a focused button is not blurred, refocused and read out
 *  again when the table is redrawn. Nodes with a `data-focus` are matched
 *  by it, the others by place and tag. */
function morph(old, neu, attrs = true) {
  if (old.nodeType !== 1) {
    if (old.nodeValue !== neu.nodeValue) old.nodeValue = neu.nodeValue;
    return;
  }
  if (attrs) {
    // Styles through the CSSOM: the page's CSP refuses style attributes.
    const skip = (a) => a.name === "style";
    for (const a of [...old.attributes]) if (!skip(a) && !neu.hasAttributeNS(a.namespaceURI, a.localName)) old.removeAttributeNS(a.namespaceURI, a.localName);
    for (const a of neu.attributes) if (!skip(a) && old.getAttributeNS(a.namespaceURI, a.localName) !== a.value) old.setAttributeNS(a.namespaceURI, a.name, a.value);
    if (old.style && old.style.cssText !== neu.style.cssText) old.style.cssText = neu.style.cssText;
  }
  const key = (n) => n.dataset?.focus;
  const keyed = new Map([...old.children].filter(key).map((c) => [key(c), c]));
  let ref = old.firstChild;
  for (const n of [...neu.childNodes]) {
    let o = key(n) ? keyed.get(key(n)) : ref && !key(ref) && ref.nodeName === n.nodeName ? ref : null;
    if (o && (o.nodeName !== n.nodeName || o.used)) o = null;
    if (!o) {
      old.insertBefore(n, ref);
      continue;
    }
    o.used = true;
    if (o === ref) ref = ref.nextSibling;
    else old.insertBefore(o, ref);
    morph(o, n);
  }
  while (ref) {
    const next = ref.nextSibling;
    ref.remove();
    ref = next;
  }
  for (const c of old.childNodes) delete c.used;
}

/** Mounts the table view in `root` (see app.js for `ctx` and the view's methods). */
export function mount(root, ctx) {
  return new MilleTable(root, ctx);
}

class MilleTable {
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.me = ctx.seat;
    this.obs = null;
    this.seats = ctx.summary?.seats || null;
    this.count = 0;
    this.seq = -1; // the table's sequence number in the last message shown
    this.sorted = load(SORT_KEY, true);
    this.scoreWindow = load(SCORE_KEY, false);
    this.selected = null; // {pos, card}
    this.pending = new Map(); // move id -> {card, pos, action}
    this.refusal = null; // {card, pos, message}
    this.keyMode = null; // {kind: "U"|"D", pos}
    this.drag = null;
    this.drawAfterDecline = false;
    this.asked = ""; // the extension question or scores already shown, by hand
    this.lastText = [];
    this.timers = new Set();
    root.classList.add("mille");
    // One listener per kind on the root: render() keeps nodes from one
    // drawing to the next, so they carry no closures of their own.
    root.addEventListener("click", (e) => this.clicked(e));
    root.addEventListener("dblclick", (e) => {
      const c = this.cardOf(e.target);
      if (c) this.cardDoubleClicked(c, e);
    });
    root.addEventListener("pointerdown", (e) => {
      const c = this.cardOf(e.target);
      if (c) this.dragStart(c, e);
    });
    this.onMove = (e) => this.dragMove(e);
    this.onUp = (e) => this.dragEnd(e, false);
    this.onCancel = (e) => this.dragEnd(e, true);
    this.tips = tips(root, (key, node) => this.tipText(key, node));
  }

  /** A tip's text: a card's name, its kind's help and where it can go
   *  now; a place's state and its help (the text of its ? button). */
  tipText(key, node) {
    const [kind, a] = key.split(":");
    if (kind === "card") {
      const c = this.handCards()[Number(a) - 1];
      if (!c || !CARDS[c.id]) return null;
      const kinds = { distance: 1, hazard: 2, remedy: 3, safety: 4 };
      const lines = [cardName(c.id), HELP.cards[kinds[CARDS[c.id].kind]]];
      if (this.obs?.status?.seat === this.me && (this.obs.legal || []).length) {
        const where = [...this.targetsFor(c.id)].map((k) => this.targetWords(k));
        const pickFirst = !where.length && this.obs.legal.includes("draw");
        lines.push(where.length ? `Now it can go on ${where.join(", ")}.` : pickFirst ? "Pick a card from the draw pile first." : "Nothing takes it now.");
      }
      return lines;
    }
    const help = HELP[a];
    if (kind !== "area" || !help) return null;
    const state = node.querySelector(".pile")?.getAttribute("aria-label");
    return [help[0], state && state !== help[0] ? `${state}.` : null, help[1]].filter(Boolean);
  }

  // ---- the view's interface -------------------------------------------

  show(msg) {
    if (msg.seats) this.seats = msg.seats;
    if (msg.seq !== undefined) this.seq = msg.seq;
    // A move acknowledged ahead of its update stays pending until then.
    for (const [id, p] of this.pending) if (p.acked <= this.seq) this.pending.delete(id);
    const o = msg.observation;
    if (!o) {
      if (this.obs) this.render();
      return;
    }
    const before = this.obs;
    this.obs = o;
    this.count += 1;
    if (before && before.hand.join() !== o.hand.join()) {
      this.selected = null;
      if (this.keyMode?.pos) this.keyMode = null;
    }
    if (this.refusal && !o.hand.includes(this.refusal.card)) this.refusal = null;
    this.render();
    this.tell(o.events || []);
    const turn = this.afterShow(before, o.events || []);
    if (before) this.sound(o.events || [], turn);
  }

  /** The Mile Bones moments in sound (when sounds are on): a trip
   *  completed, a coup fourré, a hazard, else the viewer's turn. */
  sound(events, turn) {
    const has = (f) => events.some(f);
    if (has((e) => e.event === "trip_completed")) sounds.play("trip");
    else if (has((e) => e.event === "coup_fourre")) sounds.play("coup");
    else if (has((e) => e.event === "played" && CARDS[e.card]?.kind === "hazard")) sounds.play("hazard");
    else if (turn) sounds.play("turn");
  }

  refused(error) {
    const p = error.id !== undefined ? this.pending.get(error.id) : null;
    if (error.id !== undefined) this.pending.delete(error.id);
    if (p?.action === "decline") this.drawAfterDecline = false;
    announce(error.message, { assertive: true });
    if (p?.card) {
      this.refusal = { card: p.card, pos: p.pos, message: error.message };
      this.later(() => {
        if (this.refusal?.message === error.message) {
          this.refusal = null;
          this.render();
        }
      }, 8000);
    } else {
      this.note = error.message;
      this.later(() => {
        if (this.note === error.message) {
          this.note = "";
          this.render();
        }
      }, 8000);
    }
    this.render();
    if (p?.card) this.root.querySelector(".hand-card.refused")?.animate?.(
      reducedMotion() ? [] : [{ transform: "translateX(-6px)" }, { transform: "translateX(6px)" }, { transform: "none" }],
      { duration: 240 },
    );
  }

  acked(ack) {
    const p = this.pending.get(ack.id);
    if (!p) return;
    // The update that shows the move follows its ack (unless it was shown
    // already: a move sent again after a reconnection).
    if (ack.seq > this.seq) p.acked = ack.seq;
    else {
      this.pending.delete(ack.id);
      this.render();
    }
  }

  key(e) {
    if (!this.obs) return false;
    const k = e.key;
    const mode = this.keyMode;
    if (mode) {
      if (mode.pos && (k === "Enter" || k === " ")) {
        this.keyMode = null;
        const card = this.handCards()[mode.pos - 1];
        if (card) this.send(mode.kind === "D" ? `discard ${card.id}` : this.smartAction(card.id, false), card);
        else this.render();
        return true;
      }
      if (/^[1-7]$/.test(k) && !mode.pos) {
        const card = this.handCards()[Number(k) - 1];
        if (!card) {
          announce(`There is no card ${k}.`);
          return true;
        }
        mode.pos = Number(k);
        this.selected = card;
        announce(`${mode.kind === "D" ? "Discard" : "Use"} ${k}: ${cardName(card.id)}? Enter or Space to confirm, Escape to cancel.`);
        this.render();
        return true;
      }
      if (["Shift", "Control", "Alt", "Meta"].includes(k)) return false;
      this.keyMode = null;
      this.selected = null;
      announce("Cancelled.");
      this.render();
      // Tab cancels and still moves the focus.
      return k !== "Tab";
    }
    if (e.target?.classList?.contains("hand-card") && ["ArrowLeft", "ArrowRight", "Home", "End"].includes(k)) {
      const cards = [...this.root.querySelectorAll(".hand-card")];
      const i = cards.indexOf(e.target);
      const j = k === "Home" ? 0 : k === "End" ? cards.length - 1 : i + (k === "ArrowLeft" ? -1 : 1);
      cards[Math.max(0, Math.min(cards.length - 1, j))]?.focus();
      return true;
    }
    switch (k.toLowerCase()) {
      case "p":
        if (this.me !== null) this.pick();
        return true;
      case "u":
      case "d":
        if (this.me === null) return true;
        this.keyMode = { kind: k.toUpperCase(), pos: 0 };
        announce(`${k.toUpperCase() === "D" ? "Discard" : "Use"} which card? Type its number, 1 to ${this.handCards().length}.`);
        this.render();
        return true;
      case "o":
        if (this.me !== null) this.toggleSort();
        return true;
      case "w":
        this.toggleScores();
        return true;
      case "q":
        this.confirmLeave();
        return true;
      case "y":
        if (this.canReady) this.ready();
        return true;
      case "?":
        this.help();
        return true;
      case "escape":
        if (this.selected || this.drag) {
          // A drag under way ends now, but its pointer is followed until it
          // is released: the click that follows is not a selection.
          if (this.drag) {
            this.drag.cancelled = true;
            this.drag.ghost?.remove();
            this.root.querySelector(".area.drop-hover")?.classList.remove("drop-hover");
          }
          this.selected = null;
          announce("Selection cancelled.");
          this.render();
          return true;
        }
        return false;
    }
    return false;
  }

  help(topic) {
    if (topic && HELP[topic]) {
      const [title, ...text] = HELP[topic];
      this.dialog({ title, body: text.map((t) => el("p", {}, t)) });
      return;
    }
    const parts = ["battle", "speed", "safeties", "distance", "draw", "hand", "discard", "opponent", "cards", "status", "scores"];
    this.dialog({
      title: "Mille Bornes: the table",
      className: "mille-help",
      body: [
        el("p", {}, "Drive a trip of exactly 700 miles before the others, stopping them with hazards on the way. Your side is at the top, your hand under it with the discard pile, the other sides below; the status bar is at the bottom. Each place has a ? button that explains it."),
        el("p", {}, "On your turn, pick a card from the draw pile, then play one card or discard one. Play a card by dragging it to where it goes, or click it and then click the place, or double-click it to play it where it can go (else it is discarded). A refused move shows why next to the card."),
        el("p", {}, "Rest the pointer on a card or a place (or press it long with a finger) and a tip says what it is for. The Sound button at the top turns on sounds for hazards, coups fourrés, a trip completed and your turn."),
        parts.map((p) => [el("h3", {}, HELP[p][0]), HELP[p].slice(1).map((t) => el("p", {}, t))]),
        el("h3", {}, "Keys"),
        el("table", { class: "keys" }, el("tbody", {}, KEYS.map(([key, what]) => el("tr", {}, el("th", { scope: "row" }, key), el("td", {}, what))))),
        el("p", {}, "U and D wait for Enter or Space before anything is played, as in the terminal game: a wrong number is cancelled with Escape."),
        leavingHelp(this.ctx.client),
      ],
    });
  }

  destroy() {
    this.tips.destroy();
    this.cancelDrag();
    for (const t of this.timers) clearTimeout(t);
    for (const d of document.querySelectorAll("dialog.mille-dlg")) d.close();
    this.root.replaceChildren();
  }

  /** A dialog of ui.js that gives the focus back to the same place of
   *  the table, even when the table was redrawn meanwhile. */
  dialog(opts) {
    const active = document.activeElement;
    const key = this.root.contains(active) ? active.closest("[data-focus]")?.dataset.focus : null;
    const done = dialog({ ...opts, className: `mille-dlg ${opts.className || ""}` });
    // However it closes (a button, Escape, or an update that makes it
    // moot), the focus comes back to the table, not to the page's top.
    const d = [...document.querySelectorAll("dialog.mille-dlg")].pop();
    d?.addEventListener("close", () =>
      setTimeout(() => {
        const a = document.activeElement;
        if (this.root.isConnected && (!a || a === document.body)) this.refocus(key);
      }, 0),
    );
    return done;
  }

  // ---- state helpers ------------------------------------------------------

  get myTeam() {
    if (this.me === null || !this.obs) return null;
    return this.obs.seats[this.me]?.team ?? null;
  }

  get phase() {
    return this.obs?.status?.phase;
  }

  /** Whether the viewer has a coup-fourré chance now. */
  get chance() {
    const s = this.obs?.status;
    return s?.phase === "coup_fourre" && s.seat === this.me ? s : null;
  }

  later(fn, ms) {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  /** The hand as shown: {id, index (in the observation), pos (1..)}. */
  handCards() {
    const cards = (this.obs?.hand || []).map((id, index) => ({ id, index }));
    if (this.sorted) cards.sort((a, b) => HAND_ORDER.indexOf(a.id) - HAND_ORDER.indexOf(b.id) || a.index - b.index);
    return cards.map((c, i) => ({ ...c, pos: i + 1 }));
  }

  seatName(s) {
    return this.obs?.seat_info?.[s]?.name || `Player ${s + 1}`;
  }

  /** Whether the sides are teams of several players. */
  get teams() {
    return this.obs.seats.length > this.obs.teams.length;
  }

  /** A side in words: "you", its player's name, or "team N" (as the
   *  terminal game numbers them). */
  teamName(t) {
    if (this.teams) return t === this.myTeam ? "your team" : `team ${t + 1}`;
    if (t === this.myTeam) return "you";
    return this.obs.seats.filter((s) => s.team === t).map((s) => this.seatName(s.seat)).join(" and ") || `side ${t + 1}`;
  }

  /** The sides in the order they are shown: the viewer's first. */
  teamOrder() {
    const n = this.obs.teams.length;
    const first = this.myTeam ?? 0;
    return Array.from({ length: n }, (_, i) => (first + i) % n);
  }

  /** The target keys ("battle:1", "discard") the legal actions allow for a card. */
  targetsFor(card) {
    const out = new Set();
    for (const a of this.obs?.legal || []) {
      const [verb, c, t] = a.split(" ");
      if (c !== card) continue;
      if (verb === "discard") out.add("discard");
      else if (verb === "coup_fourre") {
        out.add(`battle:${this.myTeam}`);
        out.add(`safeties:${this.myTeam}`);
      } else if (verb === "play") {
        out.add(`${pileOf(card)}:${t}`);
        // Mile Bones plays safeties on the battle pile: both places take them.
        if (CARDS[card]?.kind === "safety") out.add(`battle:${t}`);
      }
    }
    return out;
  }

  /** The action a card dropped on a place stands for (null: cancel). */
  actionForDrop(card, target) {
    if (target === "discard") return `discard ${card}`;
    if (!target || target === "draw") return null;
    const [pile, t] = target.split(":");
    const team = Number(t);
    if (team === this.myTeam) {
      if (this.chance && CARDS[card]?.kind === "safety") return `coup_fourre ${card}`;
      return `play ${card} ${team}`;
    }
    if (pile === "battle" || pile === "speed") return `play ${card} ${team}`;
    return null;
  }

  /** The opponents' side leading in miles (where a hazard is aimed by default). */
  leader(among) {
    const teams = this.obs.teams.filter((t) => t.team !== this.myTeam && (!among || among.includes(t.team)));
    teams.sort((a, b) => miles(b) - miles(a) || a.team - b.team);
    return teams[0]?.team ?? 0;
  }

  /** Smart play (double-click, U): the coup fourré, else a legal play
   *  (several opponents: the leader in miles), else (if allowed) the
   *  discard; with nothing legal, the natural move, for the server to
   *  say why not. */
  smartAction(card, discard) {
    const legal = this.obs.legal || [];
    if (legal.includes(`coup_fourre ${card}`)) return `coup_fourre ${card}`;
    const plays = legal.filter((a) => a.startsWith(`play ${card} `));
    if (plays.length === 1) return plays[0];
    if (plays.length > 1) return `play ${card} ${this.leader(plays.map((a) => Number(a.split(" ")[2])))}`;
    if (discard && legal.includes(`discard ${card}`)) return `discard ${card}`;
    const kind = CARDS[card]?.kind;
    if (this.chance && kind === "safety") return `coup_fourre ${card}`;
    if (discard && this.obs.status.drawn && kind !== "safety") return `discard ${card}`;
    if (kind === "hazard") return `play ${card} ${this.leader()}`;
    return `play ${card} ${this.myTeam}`;
  }

  /** Sends a move; `card` ({id, pos}) is the hand card it uses, if any. */
  send(action, card = null, sure = false) {
    if (this.me === null || !action) return;
    this.refusal = null;
    this.note = "";
    this.selected = null;
    this.keyMode = null;
    const [verb, id0] = action.split(" ");
    // The published rules and Mile Bones let a safety be thrown away, but
    // ask first (docs/rules.md); BSD refuses it, with its reason.
    if (!sure && verb === "discard" && CARDS[id0]?.kind === "safety" && this.rules !== "bsd") {
      this.render();
      this.dialog({
        title: `Discard ${cardName(id0)}?`,
        body: [el("p", {}, `Really discard it? A safety can be played at any time of your turn, for 100 points.`)],
        buttons: [
          { label: "Yes", value: true },
          { label: "No", value: false, primary: true },
        ],
      }).then((yes) => (yes ? this.send(action, card, true) : announce(`${cardName(id0)} is kept.`)));
      return;
    }
    const id = this.ctx.move(action);
    this.pending.set(id, { action, card: card?.id, pos: card?.pos });
    this.render();
  }

  /** Whether a draw was sent and not answered yet (in `classic`, a move
   *  waits while another seat decides on a hidden coup fourré). */
  get drawWaiting() {
    return [...this.pending.values()].some((p) => p.action === "draw");
  }

  get rules() {
    return this.obs?.config?.rules || this.obs?.rules;
  }

  pick() {
    if (this.drawWaiting) {
      announce("Your pick is waiting for the table.");
      return;
    }
    if (this.chance) {
      this.drawAfterDecline = true;
      this.send("decline");
      return;
    }
    this.send("draw");
  }

  afterShow(before, events) {
    const o = this.obs;
    const s = o.status;
    // What a screen reader must not miss: each time the viewer is to decide.
    const was = before?.status;
    const fresh = !was || was.phase !== s.phase || was.seat !== s.seat || was.hazard !== s.hazard;
    // Its turn again: after a safety (an extra turn), or after the others'
    // moves in one update; its own draw does not make a new decision.
    const again = events.some((ev) => !(ev.event === "drew" && ev.seat === this.me));
    let turn = false;
    if (this.chance && fresh) {
      announce(`Coup fourré chance: you hold ${cardName(CARDS[s.hazard]?.safety)} against the ${cardName(s.hazard)}. U and its number plays it, P lets the chance pass.`, { assertive: true });
    } else if (s.phase === "turn" && s.seat === this.me && (fresh || again) && !this.drawAfterDecline) {
      turn = true;
      announce(!s.drawn && o.deck ? "Your turn: pick a card (P)." : o.deck ? "Your turn: play or discard a card." : "Your turn: the draw pile is out, play or discard.");
    }
    if (this.drawAfterDecline && !this.chance) {
      this.drawAfterDecline = false;
      if (o.legal.includes("draw")) this.send("draw");
    }
    if (s.phase === "extension" && s.seat === this.me) {
      const key = `ext:${o.games_won.join()}:${o.hand_number}`;
      if (this.asked !== key) {
        this.asked = key;
        this.askExtension();
      }
    } else if (s.phase === "hand_over" || s.phase === "game_over") {
      const key = `end:${o.games_won.join()}:${o.hand_number}:${s.phase}`;
      if (this.asked !== key) {
        this.asked = key;
        this.later(() => this.showScores(), reducedMotion() ? 0 : 600);
      }
    } else {
      for (const d of document.querySelectorAll("dialog.mille-scores[open], dialog.mille-ext[open]")) d.close();
    }
    return turn;
  }

  askExtension() {
    const o = this.obs;
    this.dialog({
      title: "Extension",
      className: "mille-ext",
      body: [
        el("p", {}, `You have reached ${o.target} miles. Extend the trip to 1000 miles?`),
        el("p", { class: "small" }, "Yes: play on to exactly 1000 miles, for 200 more points if you make it first. No: the trip ends here and the hand is scored."),
      ],
      buttons: [
        { label: "Yes", value: "extend", primary: true },
        { label: "No", value: "end_trip" },
      ],
    }).then((v) => {
      if (v && this.chance === null && this.phase === "extension") this.send(v);
    });
  }

  // ---- drawing the table ----------------------------------------------------

  render() {
    const o = this.obs;
    if (!o) return;
    const active = document.activeElement;
    const had = this.root.contains(active) ? active : null;
    const focus = had?.closest("[data-focus]")?.dataset.focus;
    const rd = this.root.dataset;
    rd.phase = o.status.phase;
    rd.turn = o.status.seat ?? "";
    rd.drawn = o.status.drawn ? "true" : "false";
    rd.legal = (o.legal || []).join("|");
    rd.myTeam = this.myTeam ?? "";
    rd.obs = String(this.count);
    const sel = this.selected;
    const targets = sel ? this.targetsFor(sel.id) : new Set();
    if (this.drag?.started && !this.drag.cancelled) for (const t of this.targetsFor(this.drag.card.id)) targets.add(t);
    this.targets = targets;

    const board = el("div", { class: "board" });
    const [first, ...rest] = this.teamOrder();
    board.append(this.side(o.teams[first], this.me !== null), this.me !== null ? this.handRow() : this.piles());
    // The other sides side by side where the screen is wide enough.
    board.append(el("div", { class: "others" }, rest.map((t) => this.side(o.teams[t], false))));
    const layout = el("div", { class: `mille-layout${this.scoreWindow ? " with-scores" : ""}` }, board, this.scoreWindow ? this.scorePanel() : null);
    // What the outline of the places that take the selected card shows, for
    // a screen reader: each such place is described by it.
    const canTake = el("p", { id: "mille-can-take", class: "sr-only" }, sel ? `This place takes the selected card, ${cardName(sel.id)}: Enter plays it here.` : "");
    morph(this.root, el("div", {}, this.promptLine(), layout, this.statusBar(), canTake), false);
    this.placeBubble();
    // The focused node was kept (and is not read out again) unless it went.
    if (had && document.activeElement !== had) this.refocus(focus);
  }

  /** Focuses the place `key` names, else the last card for a card that
   *  went, the draw pile, the first card or the first button. */
  refocus(key) {
    const q = (s) => this.root.querySelector(s);
    const at = (key && q(`[data-focus="${CSS.escape(key)}"]`)) || (key?.startsWith("card-") && [...this.root.querySelectorAll(".hand-card")].pop()) || q("[data-focus='pile-draw']") || q(".hand-card") || q("button");
    at?.focus({ preventScroll: true });
  }

  helpButton(topic, what) {
    return el("button", { type: "button", class: "qhelp", "aria-label": `Help: ${what}`, "data-focus": `help-${what}`, "data-help": topic }, "?");
  }

  /** One place of a side: its label, its pile (a button when the viewer
   *  plays) and its help button. */
  area(kind, team, label, content, described, topic) {
    const key = `${kind}:${team}`;
    const mine = team === this.myTeam;
    const target = this.me !== null && (mine || kind === "battle" || kind === "speed");
    const cls = ["area", `area-${kind}`];
    if (this.targets.has(key)) cls.push("can-drop");
    const labelId = `l-${kind}-${team}`;
    const pileAttrs = { class: "pile", "aria-label": `${cap(described)}`, "data-focus": `pile-${key}`, "aria-describedby": this.targets.has(key) ? "mille-can-take" : null };
    const pile = target
      ? el("button", { ...pileAttrs, type: "button" }, content)
      : el("div", { ...pileAttrs, role: "img" }, content);
    return el(
      "div",
      { class: cls.join(" "), "data-target": target ? key : null, "data-legal": this.targets.has(key) ? "true" : null, "data-tip": `area:${topic}` },
      el("div", { class: "area-head" }, el("span", { class: "area-label", id: labelId }, label), this.helpButton(topic, `${label} (${this.teamName(team)})`)),
      pile,
    );
  }

  side(team, mine) {
    const o = this.obs;
    const t = team.team;
    const who = this.teamName(t);
    const whose = mine ? (who === "you" ? "your" : "your team's") : `${who}'s`;
    const topic = mine ? null : "opponent";
    const battleTop = team.battle[team.battle.length - 1];
    const speedTop = team.speed[team.speed.length - 1];
    const m = miles(team);

    const battle = this.area(
      "battle", t, "Battle",
      battleTop ? cardNode(battleTop) : svg(emptySlotSvg("Battle")),
      `${whose} battle pile: ${battleTop ? cardName(battleTop) : "empty"}`,
      topic || "battle",
    );
    const speed = this.area(
      "speed", t, "Speed",
      speedTop ? cardNode(speedTop) : svg(emptySlotSvg("Speed")),
      `${whose} speed pile: ${speedTop ? cardName(speedTop) : "empty"}`,
      topic || "speed",
    );
    // Named in the order they are shown, so that the name holds the words in view.
    // The coups fourrés after the list: between two names they would break
    // the words in view ("Extra Tank Driving Ace") apart.
    const played = SAFETIES.filter((c) => team.safeties.includes(c));
    const coups = played.filter((c) => team.coups.includes(c)).map(cardName);
    const safeNames = played.map(cardName);
    if (coups.length) safeNames[safeNames.length - 1] += `; coup fourré: ${coups.join(", ")}`;
    const safeties = this.area(
      "safeties", t, "Safeties",
      // Spaces between the cards: axe-core reads the words in view run
      // together otherwise ("Driving AceRight of Way" is not in the name).
      el("span", { class: "safety-grid" }, SAFETIES.map((c, i) => [i ? " " : null, team.safeties.includes(c) ? cardNode(c, { coup: team.coups.includes(c) }) : svg(emptySlotSvg(""))])),
      `${whose} safeties: ${safeNames.length ? safeNames.join(", ") : "none"}`,
      topic || "safeties",
    );
    const counts = MILES.map((c) => [c, team.distance.filter((d) => d === c).length]).filter(([, n]) => n);
    const bar = el("span", { class: "bar" }, el("span", { class: "bar-fill" }));
    bar.firstChild.style.width = `${Math.min(100, (100 * m) / (o.target || 700))}%`;
    const distance = this.area(
      "distance", t, "Miles",
      el(
        "span",
        { class: "miles" },
        el("span", { class: "miles-total" }, el("strong", {}, String(m)), ` / ${o.target}`),
        " ",
        bar,
        el("span", { class: "miles-cards" }, counts.length ? counts.map(([c, n]) => [el("span", { class: "mini" }, cardNode(c), n > 1 ? [" ", el("span", { class: "times" }, `×${n}`)] : null), " "]) : el("span", { class: "none" }, "no miles yet")),
      ),
      // The words in view, in their order (label in name): "150 / 700, 25 miles ×2".
      `${whose} miles: ${m} / ${o.target}, ${counts.length ? counts.map(([c, n]) => `${c} miles${n > 1 ? ` ×${n}` : ""}`).join(", ") : "no miles yet"}`,
      topic || "distance",
    );

    const turnSeat = o.status.seat;
    const players = o.seats.filter((s) => s.team === t).map((s) => {
      const info = this.seats?.[s.seat];
      let name = s.seat === this.me ? `You (${this.seatName(s.seat)})` : this.seatName(s.seat);
      // A program playing through its own account is marked as one.
      if (info && info.kind === "human" && !info.player && s.seat !== this.me) name = "Free seat";
      else if (info?.bot) name += info.invited ? " (bot, invited)" : " (bot)";
      else if (info && info.kind === "human" && !info.connected && !info.away && s.seat !== this.me) name += " (not connected)";
      const turn = turnSeat === s.seat && ["turn", "extension", "coup_fourre"].includes(o.status.phase);
      return el(
        "span",
        { class: `player${turn ? " turn" : ""}`, "data-seat": s.seat },
        turn ? el("span", { class: "turn-mark", "aria-hidden": "true" }, "▶ ") : null,
        name,
        s.seat !== this.me ? el("span", { class: "count" }, ` · ${s.hand_size} card${s.hand_size === 1 ? "" : "s"}`) : null,
        turn ? el("span", { class: "sr-only" }, " (to play)") : null,
      );
    });
    const score = team.score;
    const handPts = score.hand;
    const head = el(
      "div",
      { class: "side-head", "data-tip": mine ? null : "area:opponent" },
      el("h2", { id: `side-${t}` }, this.teams ? el("span", { class: "team-name" }, `${cap(who)}:`) : null, players),
      el("span", { class: "side-score" }, `hand ${handPts} · total ${score.game + handPts}`),
    );
    const areas = el("div", { class: "areas" }, battle, speed, safeties, distance, mine ? this.drawPile() : null);
    return el("section", { class: `side${mine ? " mine" : " other"}`, "aria-labelledby": `side-${t}` }, head, areas);
  }

  drawPile() {
    const o = this.obs;
    const out = o.deck === 0;
    const waiting = this.drawWaiting;
    const legal = !waiting && ((o.legal || []).includes("draw") || !!this.chance);
    const label = out ? "Draw pile: out" : `Draw pile: ${o.deck} cards${waiting ? ". Your pick is waiting" : legal ? ". Pick a card" : ""}`;
    // The count in view is in the name; once out, the empty place says so itself.
    const content = out ? [svg(emptySlotSvg("Out"))] : [svg(cardBackSvg()), el("span", { class: "deck-count", "aria-hidden": "true" }, String(o.deck))];
    const pile = this.me !== null
      ? el("button", { type: "button", class: `pile${legal ? " can-pick" : ""}${waiting ? " waiting" : ""}`, "aria-label": label, "data-focus": "pile-draw" }, content)
      : el("div", { class: "pile", role: "img", "aria-label": label }, content);
    return el(
      "div",
      { class: `area area-draw${legal ? " can-drop" : ""}`, "data-target": "draw", "data-legal": legal ? "true" : null, "data-tip": "area:draw" },
      el("div", { class: "area-head" }, el("span", { class: "area-label" }, "Draw"), this.helpButton("draw", "Draw pile")),
      pile,
    );
  }

  discardPile() {
    const top = this.obs.discards[this.obs.discards.length - 1];
    const can = this.targets.has("discard");
    const label = `Discard pile: ${top ? cardName(top) : "empty"}`;
    const content = top ? cardNode(top) : svg(emptySlotSvg("Discard"));
    const pile = this.me !== null
      ? el("button", { type: "button", class: "pile", "aria-label": label, "data-focus": "pile-discard", "aria-describedby": can ? "mille-can-take" : null }, content)
      : el("div", { class: "pile", role: "img", "aria-label": label }, content);
    return el(
      "div",
      { class: `area area-discard${can ? " can-drop" : ""}`, "data-target": this.me !== null ? "discard" : null, "data-legal": can ? "true" : null, "data-tip": "area:discard" },
      el("div", { class: "area-head" }, el("span", { class: "area-label" }, "Discard"), this.helpButton("discard", "Discard pile")),
      pile,
    );
  }

  /** A spectator's middle row: the draw and discard piles. */
  piles() {
    return el("div", { class: "hand-row piles" }, this.drawPile(), this.discardPile());
  }

  handRow() {
    const cards = this.handCards();
    const legalCards = new Set((this.obs.legal || []).map((a) => a.split(" ")[1]).filter(Boolean));
    const pendingCards = new Set([...this.pending.values()].map((p) => p.card).filter(Boolean));
    const r = this.refusal;
    // The refused card: the one at the place it was, else the first of its kind.
    const refusedPos = r ? (cards.find((c) => c.pos === r.pos && c.id === r.card) || cards.find((c) => c.id === r.card))?.pos : null;
    const slots = cards.map((c) => {
      const selected = this.selected?.pos === c.pos && this.selected.id === c.id;
      const refused = refusedPos === c.pos;
      const cls = ["hand-card"];
      if (selected) cls.push("selected");
      if (pendingCards.has(c.id)) cls.push("pending");
      if (refused) cls.push("refused");
      if (this.drag?.started && !this.drag.cancelled && this.drag.card.pos === c.pos) cls.push("dragging");
      const art = cardNode(c.id);
      art.setAttribute("aria-hidden", "true");
      const b = el(
        "button",
        {
          type: "button",
          class: cls.join(" "),
          "aria-label": `${c.pos}: ${cardName(c.id)}`,
          "aria-pressed": selected ? "true" : "false",
          "aria-describedby": refused ? "mille-bubble" : null,
          "data-card": c.id,
          "data-pos": c.pos,
          "data-legal": legalCards.has(c.id) ? "true" : null,
          "data-focus": `card-${c.pos}`,
          "data-tip": `card:${c.pos}`,
        },
        // The number first: the name says it first ("1: 25 miles").
        // (A space between them: axe-core reads the words of the elements
        // in view run together otherwise.)
        el("span", { class: "num", "aria-hidden": "true" }, String(c.pos)),
        " ",
        art,
      );
      return el("div", { class: "slot" }, b);
    });
    // A toggle button rather than a checkbox: the game's keys work wherever the focus is.
    const sort = el("button", { type: "button", class: "small-button", id: "mille-sort", "aria-pressed": this.sorted ? "true" : "false", "data-focus": "sort" }, "Sort (O)");
    return el(
      "section",
      { class: "hand-row", "aria-labelledby": "mille-hand" },
      el(
        "div",
        { class: "area-head hand-head", "data-tip": "area:hand" },
        el("h2", { class: "area-label", id: "mille-hand" }, `Your hand (${cards.length} cards)`),
        sort,
        this.helpButton("hand", "Your hand"),
      ),
      slots,
      this.discardPile(),
      // The reason of a refusal, on a line of its own under the hand: over
      // the hand it would hide the heading and the Sort button.
      refusedPos ? el("div", { class: "bubble-row" }, el("div", { class: "bubble", id: "mille-bubble" }, r.message)) : null,
    );
  }

  /** Puts the refusal bubble under its card, inside its row. */
  placeBubble() {
    const b = this.root.querySelector(".bubble");
    const card = this.root.querySelector(".hand-card.refused");
    if (!b || !card) return;
    const row = b.parentElement.getBoundingClientRect();
    const c = card.getBoundingClientRect();
    const width = b.getBoundingClientRect().width;
    const centre = c.left + c.width / 2 - row.left;
    const left = Math.max(0, Math.min(row.width - width, centre - width / 2));
    b.style.marginLeft = `${left}px`;
    // The arrow points at the card.
    b.style.setProperty("--arrow", `${centre - left}px`);
  }

  promptLine() {
    const o = this.obs;
    const s = o.status;
    let text;
    const buttons = [];
    const name = (seat) => (seat === this.me ? "you" : this.seatName(seat));
    if (this.keyMode) {
      const verb = this.keyMode.kind === "D" ? "Discard" : "Use";
      text = this.keyMode.pos ? `${verb} card ${this.keyMode.pos} (${cardName(this.selected?.id)})? Enter or Space to confirm, Escape to cancel.` : `${verb} which card? Type its number.`;
    } else if (s.phase === "hand_over" || s.phase === "game_over") {
      const shared = s.phase === "hand_over" && this.me !== null && this.ctx.shared?.();
      if (s.phase === "game_over") text = "The game is over.";
      else if (!shared) text = "The hand is over: the next one is dealt when everybody is ready.";
      // With other people at the table, the question says what each key
      // and button does: leaving is one of the answers, not a slip.
      else if (this.canReady) text = "The hand is over. Ready for the next hand? Y (or Next hand); Q (or Leave the table) leaves the table.";
      else text = "The hand is over. You are ready: the next hand is dealt when everybody is. Q (or Leave the table) leaves the table.";
      if (this.canReady) buttons.push(el("button", { type: "button", class: "primary", "data-focus": "ready", "aria-keyshortcuts": "Y" }, "Next hand"));
      else if (s.phase === "hand_over" && this.me !== null && !shared) text += " You are ready.";
      if (shared) buttons.push(el("button", { type: "button", "data-focus": "leave", "aria-keyshortcuts": "Q" }, "Leave the table"));
      buttons.push(el("button", { type: "button", "data-focus": "show-scores" }, "Show the scores"));
    } else if (this.chance) {
      const safety = CARDS[this.chance.hazard]?.safety;
      text = `${cap(this.seatName(this.chance.attacker))} played ${cardName(this.chance.hazard)} on you, and you hold ${cardName(safety)}: click it (or U and its number) for a coup fourré, 300 points more, or click the draw pile (P) to let it pass.`;
    } else if (s.phase === "extension") {
      if (s.seat === this.me) {
        text = `You reached ${o.target} miles: extend the trip to 1000?`;
        buttons.push(
          el("button", { type: "button", "data-focus": "ext-yes" }, "Yes, extend"),
          el("button", { type: "button", "data-focus": "ext-no" }, "No, end the trip"),
        );
      } else text = `${cap(name(s.seat))} decides whether to extend the trip.`;
    } else if (this.me === null) {
      text = `You are watching. ${cap(name(s.seat))} to play.`;
    } else if (s.seat === this.me) {
      if (this.selected) {
        const where = [...this.targetsFor(this.selected.id)];
        text = `${cardName(this.selected.id)} selected: ${where.length ? "click where it goes (outlined)" : "nothing takes it now, but you may try"}, or Escape.`;
      } else if (!s.drawn && this.drawWaiting) text = "Your pick is sent: it waits for the table.";
      else if (!s.drawn) text = o.deck ? "Your turn: pick a card from the draw pile (click it, or P)." : "Your turn: the draw pile is out, play or discard a card.";
      else text = "Play a card (drag it where it goes, or click it then the place) or discard one.";
    } else {
      text = `${cap(name(s.seat))} to play.`;
    }
    return el(
      "div",
      { class: "prompt" },
      el("p", { id: "mille-prompt" }, text, this.note ? el("span", { class: "note" }, ` ${this.note}`) : null),
      buttons.length ? el("span", { class: "prompt-buttons" }, buttons) : null,
      this.lastText.length ? el("p", { class: "last", "aria-hidden": "true" }, this.lastText.join(" · ")) : null,
    );
  }

  statusBar() {
    const o = this.obs;
    const s = o.status;
    const teams = this.teamOrder();
    let turn;
    if (s.phase === "hand_over") turn = "Hand over";
    else if (s.phase === "game_over") turn = "Game over";
    else turn = s.seat === this.me ? "your turn" : `${this.seatName(s.seat)}'s turn`;
    const rules = `${RULES[o.config?.rules || o.rules] || o.rules}, ${o.config?.players || o.seats.length} players${o.config?.stacking ? ", stacking" : ""}`;
    const items = [
      `Deck: ${o.deck || "out"}`,
      cap(turn),
      rules,
      `Trip: ${o.target} miles${o.extended ? " (extended)" : ""}`,
      `Hand ${o.hand_number + 1}`,
      `Games won: ${teams.map((t) => `${o.games_won[t] ?? 0} (${this.teamName(t)})`).join(", ")}`,
      `Points: ${teams.map((t) => `${o.teams[t].score.game + o.teams[t].score.hand} (${this.teamName(t)})`).join(", ")}, game to ${GAME_POINTS}`,
    ];
    return el(
      "div",
      { class: "statusbar", "data-tip": "area:status" },
      el("ul", { "aria-label": "Status" }, items.map((i) => el("li", {}, i))),
      el("button", { type: "button", class: "small-button", "aria-pressed": this.scoreWindow ? "true" : "false", "data-focus": "score-toggle" }, "Scores (W)"),
      this.helpButton("status", "Status bar"),
    );
  }

  /** The score table: this hand's items per side, the hand and game totals. */
  scoreTable(caption) {
    const o = this.obs;
    const teams = this.teamOrder();
    const scores = o.hand_scores || [];
    const ends = o.status.phase === "hand_over" || o.status.phase === "game_over";
    return el(
      "table",
      { class: "scores" },
      el("caption", {}, caption),
      el("thead", {}, el("tr", {}, el("td", {}), teams.map((t) => el("th", { scope: "col" }, cap(this.teamName(t)))))),
      el(
        "tbody",
        {},
        SCORE_ROWS.map(([k, label]) => el("tr", {}, el("th", { scope: "row" }, label), teams.map((t) => el("td", {}, String(scores[t]?.[k] ?? 0))))),
        el("tr", { class: "sum" }, el("th", { scope: "row" }, ends ? "Hand total" : "Hand so far"), teams.map((t) => el("td", {}, String(total(scores[t]))))),
        el("tr", { class: "sum" }, el("th", { scope: "row" }, "Overall total"), teams.map((t) => el("td", {}, String(o.teams[t].score.game + total(scores[t]))))),
      ),
    );
  }

  scorePanel() {
    return el("aside", { class: "score-window", "aria-label": "Score window", "data-tip": "area:scores" }, this.scoreTable(`Hand ${this.obs.hand_number + 1}`), this.helpButton("scores", "Score window"));
  }

  // ---- what happened --------------------------------------------------------

  /** Announces events in words and animates the others' moves. */
  tell(events) {
    const lines = [];
    let delay = 0;
    for (const ev of events) {
      const line = this.describe(ev);
      if (line) {
        announce(line);
        lines.push(line);
      }
      if (ev.seat !== this.me || ev.event === "coup_fourre") {
        const d = delay;
        if (d) this.later(() => this.animate(ev), d);
        else this.animate(ev);
        if (["played", "discarded", "coup_fourre"].includes(ev.event)) delay += 220;
      }
    }
    if (lines.length) {
      this.lastText = [...this.lastText, ...lines].slice(-3);
      const last = this.root.querySelector(".prompt .last");
      if (last) last.textContent = this.lastText.join(" · ");
      else this.render();
    }
  }

  describe(ev) {
    const o = this.obs;
    const me = ev.seat === this.me;
    const who = me ? "You" : cap(this.seatName(ev.seat));
    switch (ev.event) {
      case "dealt":
        return `Hand ${ev.hand + 1} is dealt: ${ev.first === this.me ? "you start" : `${this.seatName(ev.first)} starts`}.`;
      case "new_game":
        return "A new game starts.";
      case "drew":
        // Another seat's draw, every turn, is only shown.
        return ev.card ? `${who} drew ${cardName(ev.card)}.` : "";
      case "played": {
        const actorTeam = o.seats[ev.seat]?.team;
        if (ev.team === actorTeam) return `${who} played ${cardName(ev.card)}.`;
        return `${who} played ${cardName(ev.card)} on ${this.teamName(ev.team)}.`;
      }
      case "discarded":
        return `${who} discarded ${cardName(ev.card)}.`;
      case "coup_fourre":
        return `Coup fourré! ${who} answered ${cardName(ev.hazard)} with ${cardName(ev.safety)}.`;
      case "declined_coup_fourre":
        return "You let the coup fourré pass.";
      case "extension":
        return ev.extend ? `${who} extended the trip to ${o.target > 700 ? o.target : 1000} miles.` : `${who} ended the trip without an extension.`;
      case "trip_completed":
        return `${cap(this.teamName(ev.team))} completed the trip!`;
      case "hand_over": {
        const parts = this.teamOrder().map((t) => `${this.teamName(t)} ${total(ev.scores?.[t])} (in all ${ev.totals?.[t] ?? ""})`);
        return `The hand is over: ${parts.join(", ")}.`;
      }
      case "game_over":
      {
        const names = ev.winners.map((t) => this.teamName(t));
        if (names.length > 1) return `The game is over: a tie between ${names.join(" and ")}.`;
        return `The game is over: ${names[0] === "you" ? "you win" : `${names[0]} wins`}!`;
      }
    }
    return "";
  }

  /** The place of a side's pile on screen. */
  placeOf(key) {
    return this.root.querySelector(`[data-target="${key}"] .pile`) || this.root.querySelector(`#l-${key.replace(":", "-")}`)?.closest(".area")?.querySelector(".pile");
  }

  animate(ev) {
    if (!this.obs) return;
    const from = this.root.querySelector(`.player[data-seat="${ev.seat}"]`);
    let to = null;
    let card = null;
    if (ev.event === "played") {
      to = this.placeOf(`${pileOf(ev.card)}:${ev.team}`);
      card = ev.card;
    } else if (ev.event === "discarded") {
      to = this.root.querySelector(".area-discard .pile");
      card = ev.card;
    } else if (ev.event === "coup_fourre") {
      to = this.placeOf(`safeties:${this.obs.seats[ev.seat]?.team}`);
    } else if (ev.event === "drew") {
      to = this.root.querySelector(".area-draw .pile");
    } else if (ev.event === "trip_completed") {
      to = this.placeOf(`distance:${ev.team}`);
    }
    if (!to) return;
    if (reducedMotion()) return;
    to.animate([{ transform: "scale(1)" }, { transform: "scale(1.08)" }, { transform: "scale(1)" }], { duration: 420, easing: "ease-out" });
    if (!card || !from) return;
    const a = from.getBoundingClientRect();
    const b = to.getBoundingClientRect();
    const ghost = el("div", { class: "mille-ghost", "aria-hidden": "true" }, cardNode(card));
    Object.assign(ghost.style, { left: `${b.left}px`, top: `${b.top}px`, width: `${b.width}px` });
    document.body.append(ghost);
    const dx = a.left + a.width / 2 - (b.left + b.width / 2);
    const dy = a.top + a.height / 2 - (b.top + b.height / 2);
    const anim = ghost.animate(
      [
        { transform: `translate(${dx}px, ${dy}px) scale(0.5)`, opacity: 0.2 },
        { transform: "translate(0, 0) scale(1)", opacity: 1, offset: 0.8 },
        { transform: "none", opacity: 0 },
      ],
      { duration: 650, easing: "ease-out" },
    );
    anim.finished.then(() => ghost.remove(), () => ghost.remove());
  }

  // ---- playing --------------------------------------------------------------

  /** The hand card (as handCards() gives it) of a node inside its button. */
  cardOf(node) {
    const b = node?.closest?.(".hand-card");
    const c = b && this.handCards()[Number(b.dataset.pos) - 1];
    return c && c.id === b.dataset.card ? c : null;
  }

  /** Every click of the table: its button's `data-focus` says what it is. */
  clicked(e) {
    const b = e.target.closest?.("button[data-focus]");
    if (!b || !this.root.contains(b)) return;
    const key = b.dataset.focus;
    if (b.dataset.help) return this.help(b.dataset.help);
    if (key.startsWith("card-")) {
      const c = this.cardOf(b);
      if (c) this.cardClicked(c, e);
    } else if (key.startsWith("pile-")) this.targetClicked(key.slice(5));
    else if (key === "ext-yes" || key === "ext-no") this.send(key === "ext-yes" ? "extend" : "end_trip");
    else ({ sort: () => this.toggleSort(), "score-toggle": () => this.toggleScores(), "show-scores": () => this.showScores(), ready: () => this.ready(), leave: () => this.confirmLeave() })[key]?.();
  }

  cardClicked(c, e) {
    if (this.suppressClick) {
      this.suppressClick = false;
      return;
    }
    if (this.me === null) return;
    this.keyMode = null;
    if ([...this.pending.values()].some((p) => p.card === c.id)) return;
    const chance = this.chance;
    if (chance && CARDS[chance.hazard]?.safety === c.id) {
      this.send(`coup_fourre ${c.id}`, c);
      return;
    }
    if (this.selected?.pos === c.pos) {
      this.selected = null;
      if (e.detail === 0) announce("Selection cancelled.");
    } else {
      this.selected = c;
      // Said for a click too: the outline of the places is not seen by all.
      const where = [...this.targetsFor(c.id)].map((k) => this.targetWords(k));
      announce(`${cardName(c.id)} selected. ${where.length ? `It can go on ${where.join(", ")}` : "Nothing takes it now"}${e.detail === 0 ? ": Tab to the place and press Enter; Escape cancels." : "."}`);
    }
    this.refusal = null;
    this.render();
  }

  cardDoubleClicked(c, e) {
    e.preventDefault();
    if (this.me === null) return;
    if ([...this.pending.values()].some((p) => p.card === c.id)) return;
    this.send(this.smartAction(c.id, true), c);
  }

  targetWords(key) {
    if (key === "discard") return "the discard pile";
    const [pile, t] = key.split(":");
    const whose = Number(t) === this.myTeam ? "your" : `${this.teamName(Number(t))}'s`;
    return `${whose} ${pile === "distance" ? "miles" : pile === "safeties" ? "safeties" : `${pile} pile`}`;
  }

  targetClicked(key) {
    if (this.me === null) return;
    const sel = this.selected;
    if (key === "draw") {
      if (sel) {
        this.selected = null;
        this.render();
      }
      if (this.chance || !sel || (this.obs.legal || []).includes("draw")) this.pick();
      return;
    }
    if (!sel) {
      const chance = this.chance;
      const safety = chance && CARDS[chance.hazard]?.safety;
      if (safety && key.endsWith(`:${this.myTeam}`) && this.obs.hand.includes(safety)) {
        this.send(`coup_fourre ${safety}`, this.handCards().find((c) => c.id === safety));
        return;
      }
      announce("Select a card of your hand first, then the place where it goes.");
      return;
    }
    const action = this.actionForDrop(sel.id, key);
    if (!action) {
      this.selected = null;
      announce(`${cardName(sel.id)} cannot go there.`, { assertive: true });
      this.render();
      return;
    }
    this.send(action, sel);
  }

  dragStart(c, e) {
    if (this.me === null || this.drag || (e.pointerType === "mouse" && e.button !== 0)) return;
    const card = e.target.closest(".hand-card");
    this.drag = { card: c, x: e.clientX, y: e.clientY, id: e.pointerId, el: card, started: false, ghost: null, over: null };
    try {
      card.setPointerCapture(e.pointerId);
    } catch {
      // A pointer that is already gone: the window's listeners still see its end.
    }
    window.addEventListener("pointermove", this.onMove);
    window.addEventListener("pointerup", this.onUp);
    window.addEventListener("pointercancel", this.onCancel);
  }

  dragMove(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.id || d.cancelled) return;
    if (!d.started) {
      if (Math.hypot(e.clientX - d.x, e.clientY - d.y) < DRAG_START) return;
      d.started = true;
      const r = d.el.getBoundingClientRect();
      d.dx = d.x - r.left;
      d.dy = d.y - r.top;
      d.ghost = el("div", { class: "mille-ghost dragged", "aria-hidden": "true" }, cardNode(d.card.id));
      d.ghost.style.width = `${r.width}px`;
      document.body.append(d.ghost);
      // Marked in place, not redrawn: the card keeps the pointer's capture.
      d.el.classList.add("dragging");
      this.root.querySelector(".bubble")?.remove();
      for (const a of this.root.querySelectorAll(".area[data-target]")) {
        const can = this.targetsFor(d.card.id).has(a.dataset.target);
        a.classList.toggle("can-drop", can);
        if (can) a.dataset.legal = "true";
        else delete a.dataset.legal;
      }
      this.selected = null;
      this.refusal = null;
    }
    e.preventDefault();
    d.ghost.style.left = `${e.clientX - d.dx}px`;
    d.ghost.style.top = `${e.clientY - d.dy}px`;
    const over = this.targetAt(e.clientX, e.clientY);
    if (over !== d.over) {
      this.root.querySelector(".area.drop-hover")?.classList.remove("drop-hover");
      if (over) this.root.querySelector(`[data-target="${over}"]`)?.classList.add("drop-hover");
      d.over = over;
    }
  }

  targetAt(x, y) {
    const hit = document.elementFromPoint(x, y)?.closest?.("[data-target]");
    return hit && this.root.contains(hit) ? hit.dataset.target : null;
  }

  dragEnd(e, cancelled) {
    const d = this.drag;
    if (!d || e.pointerId !== d.id) return;
    this.cancelDrag();
    if (!d.started && !d.cancelled) return;
    this.suppressClick = true;
    // The click that follows a drag (on the captured card) is not a selection.
    this.later(() => (this.suppressClick = false), 0);
    const target = cancelled || d.cancelled ? null : this.targetAt(e.clientX, e.clientY);
    const action = target ? this.actionForDrop(d.card.id, target) : null;
    if (action) this.send(action, d.card);
    else this.render();
  }

  cancelDrag() {
    const d = this.drag;
    if (!d) return;
    this.drag = null;
    window.removeEventListener("pointermove", this.onMove);
    window.removeEventListener("pointerup", this.onUp);
    window.removeEventListener("pointercancel", this.onCancel);
    d.ghost?.remove();
    this.root.querySelector(".area.drop-hover")?.classList.remove("drop-hover");
  }

  // ---- options and dialogs ----------------------------------------------------

  toggleSort() {
    this.sorted = !this.sorted;
    save(SORT_KEY, this.sorted);
    this.selected = null;
    announce(this.sorted ? "Your hand is kept sorted." : "Your hand is no longer sorted.");
    this.render();
  }

  toggleScores() {
    this.scoreWindow = !this.scoreWindow;
    save(SCORE_KEY, this.scoreWindow);
    announce(this.scoreWindow ? "Score window shown." : "Score window hidden.");
    this.render();
  }

  /** Q: a player's leave asks the page (which says what leaving a game
   *  in progress means at this table); a spectator is asked here. */
  async confirmLeave() {
    if (this.me !== null) {
      this.ctx.leave();
      return;
    }
    const v = await this.dialog({
      title: "Leave the table?",
      body: [el("p", {}, "Stop watching this table.")],
      buttons: [
        { label: "Leave", value: "leave", primary: true },
        { label: "Stay", value: null },
      ],
    });
    if (v === "leave") this.ctx.leave();
  }

  showScores() {
    const o = this.obs;
    if (!o) return;
    for (const d of document.querySelectorAll("dialog.mille-scores")) d.close();
    const over = o.status.phase === "game_over";
    const ended = over || o.status.phase === "hand_over";
    const teams = this.teamOrder();
    const body = [this.scoreTable(`Hand ${o.hand_number + 1}`)];
    let title = ended ? `Hand ${o.hand_number + 1} is over` : `Scores of hand ${o.hand_number + 1}`;
    if (over) {
      const totals = teams.map((t) => o.teams[t].score.game + total(o.hand_scores[t]));
      const best = Math.max(...totals);
      const winners = teams.filter((_, i) => totals[i] === best);
      const names = winners.map((t) => this.teamName(t));
      title = "Game over";
      body.unshift(el("p", { class: "winners" }, winners.length > 1 ? `A tie between ${names.join(" and ")}!` : names[0] === "you" ? "You win the game!" : `${cap(names[0])} wins the game.`));
      body.push(el("p", {}, el("a", { href: "#/scores/mille" }, "The high-score table"), " · ", el("a", { href: reviewHref(this.ctx), class: "review-link" }, "Review this game")));
    }
    // At a table shared with other people, the question says what each
    // answer does, and Y and Q answer it from the dialog too.
    const shared = this.canReady && this.ctx.shared?.();
    if (shared) body.push(el("p", { class: "question" }, "Ready for the next hand? Y (or Next hand); Q (or Leave the table) leaves the table."));
    this.dialog({
      title,
      className: "mille-scores",
      body,
      // Only a player says it is ready (a spectator is not waited for).
      buttons: this.canReady
        ? [
            { label: "Next hand", value: "next", primary: true },
            shared ? { label: "Leave the table", value: "leave" } : null,
            { label: "Close", value: null },
          ].filter(Boolean)
        : [{ label: "Close", value: null, primary: true }],
      keys: shared ? { y: "next", q: "leave" } : {},
    }).then((v) => {
      if (v === "next") this.ready();
      else if (v === "leave") this.confirmLeave();
    });
  }

  /** The hand that the viewer said it is ready to leave. */
  get handKey() {
    return `${this.obs.games_won.join()}:${this.obs.hand_number}`;
  }

  /** Whether the viewer, a player, may say it is ready for the next hand. */
  get canReady() {
    return this.me !== null && this.phase === "hand_over" && this.readyFor !== this.handKey;
  }

  ready() {
    if (!this.canReady) return;
    this.readyFor = this.handKey;
    this.ctx.ready();
    announce("Ready: the next hand is dealt when everybody is.");
    this.render();
  }
}
