// The cubes table: the five dice (pick the ones to keep, then roll the
// rest, or hold), the turn, every player's score and who plays now, what
// happened in words, and the other cubes games in progress. The rules are
// the server's: what may be done comes from `observation.legal`, why a
// move is refused from the server's `error.message`, and every number
// shown is one the observation carries.

import { el, svg, announce, dialog, reducedMotion, rankingNodes, tips, sounds, leavingHelp } from "./ui.js";
import { dieSvg } from "./cards.js";

const DIGIT = { One: "1", Two: "2", Three: "3", Four: "4", Five: "5", Six: "6", Joker: "J" };
const DICE = [0, 1, 2, 3, 4];
const fmt = (x) => Number(x || 0).toLocaleString("en-US");
const inMask = (mask, i) => (mask & (1 << i)) !== 0;
const bitCount = (mask) => DICE.filter((i) => inMask(mask, i)).length;
const keepMask = (a) => (a && typeof a === "object" && typeof a.Keep === "number" ? a.Keep : null);
/** How often the panel of other games asks the server again. */
const OTHERS_EVERY_MS = 6000;

/** What each part of the screen is for: the help's words, and the tips
 *  shown when the pointer rests on a part (or a finger presses it long). */
const PARTS = {
  dice: ["The dice", "The dice just rolled are buttons: press one to keep it (it rises, “keep”). Dice kept earlier this turn are set aside (“held”, a padlock).", "At your turn each die just rolled says whether it scores in this roll (“scores”) or not (“no score”, dimmed): a die that scores nothing cannot be kept, and dice that score only together (three of a kind) are kept together."],
  turn: ["The turn", "The turn total, the roll count, what holding now would bank."],
  scores: ["Scores", "Who plays now (▶), who is on board, turns played."],
  log: ["What happened", "The last rolls, keeps, busts and banks."],
  others: ["Games in progress", "The other cubes tables here; and the server's cubes rankings."],
  controls: ["Your move", "Roll all five dice. Keep at least one scoring die and roll the others, or hold to bank the turn."],
};

/** A blank die: before the first roll of a turn, the dice show nothing. */
const BLANK_DIE = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" class="die die-blank"><rect x="4" y="4" width="92" height="92" rx="17" fill="none" stroke="currentColor" stroke-width="3" stroke-dasharray="9 7"/></svg>`;

/** The finished game's page, opened at its review (of the viewer's seat
 *  when it sat at the table): `/games/ID#review`. */
function reviewHref(ctx) {
  const code = ctx.code ? `?code=${encodeURIComponent(ctx.code)}` : "";
  const seat = Number.isInteger(ctx.seat) ? `-${ctx.seat}` : "";
  return `/games/${encodeURIComponent(ctx.table)}${code}#review${seat}`;
}

function plural(face) {
  return face === "Six" ? "Sixes" : `${face}s`;
}

/** A combination of the engine's `combos` in words. */
function comboText(c) {
  if (typeof c === "string") {
    return (
      { Straight: "a straight", HeldStraight: "a straight with held dice", SmallStraight: "a small straight", SingleOne: "a One", SingleFive: "a Five", SingleJoker: "a Joker" }[c] || c
    );
  }
  const [kind, face] = Object.entries(c || {})[0] || [];
  const count = { FiveOfAKind: "five", FourOfAKind: "four", ThreeOfAKind: "three" }[kind];
  return count ? `${count} ${plural(face)}` : String(kind);
}

function combosText(combos) {
  const items = (combos?.items || []).filter(Boolean).map(comboText);
  if (items.length <= 1) return items[0] || "nothing";
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** The screen of one cubes table. */
class CubesView {
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.obs = null;
    this.seats = ctx.summary?.seats || null;
    this.seq = -1;
    this.picked = 0;
    this.rollKey = "";
    this.busy = false;
    this.waitSeq = null;
    this.lastRoll = null; // {seat, dice, rolled, outcome}
    this.log = [];
    this.overtime = null;
    this.build();
    this.refreshOthers();
    this.timer = setInterval(() => this.refreshOthers(), OTHERS_EVERY_MS);
  }

  get player() {
    return this.ctx.seat !== null && this.ctx.seat !== undefined;
  }

  build() {
    const player = this.player;
    this.status = el("p", { class: "cu-status", id: "cu-status" });
    this.slots = DICE.map((i) => {
      const face = el("span", { class: "cu-face" });
      const caption = el("span", { class: "cu-caption" });
      const die = player
        ? el("button", { type: "button", class: "cu-die", id: `die-${i + 1}`, "aria-pressed": "false", "aria-keyshortcuts": String(i + 1), "data-tip": `die:${i}`, onclick: () => this.toggle(i) }, face, caption)
        : el("span", { class: "cu-die", id: `die-${i + 1}`, role: "img", "data-tip": `die:${i}` }, face, caption);
      return { die, face, caption, shown: "" };
    });
    this.diceRow = el("div", { class: "cu-dice", role: "group", "aria-label": "The five dice", "aria-describedby": "cu-dice-note" }, this.slots.map((s) => el("div", { class: "cu-slot" }, s.die)));
    this.diceNote = el("p", { class: "cu-dice-note", id: "cu-dice-note" });
    this.turnInfo = el("dl", { class: "cu-turn", "data-tip": "part:turn" });
    this.problem = el("p", { class: "cu-problem", id: "cu-problem" });
    let controls = null;
    if (player) {
      const button = (id, label, key, onclick, cls) => el("button", { type: "button", id, class: cls || null, "aria-keyshortcuts": key, onclick }, label);
      this.rollBtn = button("cu-roll", "Roll", "R", () => this.roll(), "primary");
      this.keepBtn = button("cu-keep", "Keep and roll", "R", () => this.roll(), "primary");
      this.allBtn = button("cu-all", "All scoring dice", "A", () => this.pickAll());
      this.holdBtn = button("cu-hold", "Hold", "H", () => this.hold());
      this.holdNote = el("p", { class: "cu-hold-note", id: "cu-hold-note" });
      this.pickNote = el("p", { class: "cu-pick-note", id: "cu-pick-note" });
      this.keepBtn.setAttribute("aria-describedby", "cu-pick-note");
      controls = this.controls = el("div", { class: "cu-controls", role: "group", "aria-label": "Your move", "data-tip": "part:controls" }, el("div", { class: "cu-buttons" }, this.rollBtn, this.allBtn, this.keepBtn, this.holdBtn), this.pickNote, this.holdNote, this.problem);
    }
    this.board = el("section", { class: "cu-board", "aria-labelledby": "cu-status" }, this.status, this.turnInfo, this.diceRow, this.diceNote, controls);
    this.players = el("tbody", {});
    this.rules = el("p", { class: "cu-rules" });
    // Focusable: when the list scrolls, the keyboard scrolls it too.
    this.logList = el("ol", { class: "cu-log", tabindex: "0", "aria-labelledby": "cu-log-h" });
    this.others = el("div", { class: "cu-others-list" });
    const side = el(
      "div",
      { class: "cu-side" },
      el(
        "section",
        { class: "cu-panel", "aria-labelledby": "cu-scores-h", "data-tip": "part:scores" },
        el("h2", { id: "cu-scores-h" }, "Scores"),
        el("table", { class: "cu-scores" }, el("thead", {}, el("tr", {}, ["Player", "Score", "On board", "Turns"].map((h) => el("th", { scope: "col" }, h)))), this.players),
        this.rules,
      ),
      el("section", { class: "cu-panel", "aria-labelledby": "cu-log-h", "data-tip": "part:log" }, el("h2", { id: "cu-log-h" }, "What happened"), this.logList),
      el(
        "section",
        { class: "cu-panel", "aria-labelledby": "cu-others-h", "data-tip": "part:others" },
        el("h2", { id: "cu-others-h" }, "Games in progress"),
        this.others,
        el("p", { class: "cu-links" }, el("button", { type: "button", class: "linkish", id: "cu-rankings", onclick: async () => dialog({ title: "cubes rankings", body: await rankingNodes(this.ctx.client, "cubes") }) }, "cubes rankings"), " · ", el("button", { type: "button", class: "linkish", onclick: () => this.help() }, "Help (F1)")),
      ),
    );
    this.over = el("div", { class: "cu-over", hidden: true });
    this.root.replaceChildren(el("div", { class: "cubes" }, this.over, el("div", { class: "cu-grid" }, this.board, side)));
    this.top = this.root.firstElementChild;
    this.tips = tips(this.root, (key, node) => {
      const [kind, part] = key.split(":");
      if (kind === "die") return [node.getAttribute("aria-label"), ...PARTS.dice.slice(1)];
      return PARTS[part] || null;
    });
  }

  name(seat) {
    return this.obs?.seat_info?.[seat]?.name || `Seat ${seat + 1}`;
  }

  // ---- The view interface (app.js) ----

  show(msg) {
    const obs = msg.observation;
    if (!obs) {
      // Seats alone (an invited bot declined): the players' list follows.
      if (msg.seats && this.obs) {
        this.seatsChanged(msg.seats);
        this.render(false);
      }
      return;
    }
    const prev = this.obs;
    this.obs = obs;
    if (msg.seats) this.seatsChanged(msg.seats);
    if (!prev) this.opening(obs);
    if (typeof msg.seq === "number") this.seq = Math.max(this.seq, msg.seq);
    if (this.busy && this.waitSeq !== null && this.seq >= this.waitSeq) this.busy = false;
    const key = `${obs.current}:${obs.turn.rolls}:${obs.phase}:${obs.turn.dice.join()}:${obs.turn.states.join()}`;
    const fresh = key !== this.rollKey;
    if (fresh) {
      this.rollKey = key;
      this.picked = 0;
      if (prev) this.problem.textContent = "";
    }
    this.tell(obs.events || []);
    this.render(fresh);
  }

  /** The first words of the log: the game, and who plays. */
  opening(o) {
    const s = o.settings;
    let line = `${s.name} game to ${fmt(s.target)} points${o.jokers ? ", with JOKERS dice (13 sides, with a Joker)" : ""}.`;
    if (o.winner === null && !this.waiting()) line += ` ${o.current === this.ctx.seat ? "Your" : `${this.name(o.current)}'s`} turn.`;
    this.log.push({ line, kind: "Start" });
  }

  /** A seat taken, left, or played by a computer for its absent owner. */
  seatsChanged(seats) {
    const old = this.seats;
    this.seats = seats;
    if (!old) return;
    const news = [];
    // Who is away and back is said by the page's line above the table;
    // here it is only logged.
    const logged = [];
    seats.forEach((s, i) => {
      const was = old[i] || {};
      if (s.kind !== "human") return;
      if (s.player && s.player !== was.player) news.push(`${s.player} sits down at seat ${i + 1}.`);
      else if (!s.player && was.player) news.push(`${was.player} leaves seat ${i + 1}.`);
      else if (s.away && !was.away) logged.push(`${s.player} is away: a computer plays seat ${i + 1} for now.`);
      else if (!s.away && was.away) logged.push(`${s.player} is back.`);
    });
    const began = old.some((s) => s.kind === "human" && !s.player) && !this.waiting();
    if (began) news.push(`Everybody is here: the game begins, ${this.obs.current === this.ctx.seat ? "you first" : `${this.name(this.obs.current)} first`}.`);
    for (const line of [...news, ...logged]) this.log.push({ line, kind: "Seat" });
    if (news.length) announce(news.join(" "));
  }

  refused(error) {
    this.busy = false;
    this.waitSeq = null;
    this.warn(error.message || "The move was refused.");
    this.render(false);
  }

  acked(ack) {
    this.waitSeq = ack.seq;
    if (this.seq >= ack.seq) this.busy = false;
    this.render(false);
  }

  key(e) {
    const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (k === "q") {
      // Leaves (asking first while a game with the player in it is on).
      this.ctx.leave();
      return true;
    }
    if (!this.player || !this.obs) return false;
    const onControl = e.target instanceof HTMLElement && e.target.closest("button, a, summary");
    if ((k === " " || k === "Enter") && onControl) return false;
    const roll = () => this.roll();
    const hold = () => this.hold();
    const keys = { a: () => this.pickAll(), r: roll, " ": roll, Enter: roll, h: hold, b: hold };
    const act = /^[1-5]$/.test(k) ? () => this.toggle(Number(k) - 1) : Object.hasOwn(keys, k) ? keys[k] : null;
    if (act) act();
    return !!act;
  }

  help() {
    const o = this.obs;
    const s = o?.settings || { target: 10000, on_board: 500, off_board: 500, overtime_lead: 250 };
    const rows = [
      ["five of a kind", "face × 300"],
      ["four of a kind", "face × 200"],
      ["three of a kind", "face × 100"],
      ["straight 1–5 or 2–6 at once", "1,500"],
      ["straight completed with held dice", "750"],
      ["small straight (four in a row)", "400"],
      ["a One / a Five / a Joker", "100 / 50 / 0"],
    ];
    dialog({
      title: "cubes: help",
      className: "cu-help",
      body: [
        el("p", {}, `Score ${fmt(s.target)} points before the others, with five dice. The server keeps the rules: a move it refuses is explained next to the buttons.`),
        el("h3", {}, "The screen"),
        el(
          "ul",
          {},
          PARTS.dice.slice(1).map((t) => el("li", {}, t)),
          el("li", {}, `Above the dice: ${PARTS.turn[1].charAt(0).toLowerCase()}${PARTS.turn[1].slice(1)}`),
          ["scores", "log", "others"].map((k) => el("li", {}, `${PARTS[k][0]}: ${PARTS[k][1]}`)),
          el("li", {}, "Rest the pointer on a part of the screen (or press it long with a finger) and a tip says what it is for."),
        ),
        el("h3", {}, "A turn"),
        el(
          "ul",
          {},
          el("li", {}, "Roll all five dice. Keep at least one scoring die and roll the others, or hold to bank the turn. Every die you keep must score."),
          el("li", {}, "A roll that scores nothing ends the turn and loses its points. When all five dice have scored, you roll all five again."),
          el("li", {}, `On board: your first banked turn needs at least ${fmt(s.on_board)}. The turn that crosses ${fmt(s.target)} needs at least ${fmt(s.off_board)}. Overtime: the winner must lead by ${fmt(s.overtime_lead)}; until someone does, play goes on.`),
        ),
        el("h3", {}, "Scoring"),
        el("table", { class: "cu-combos" }, el("tbody", {}, rows.map(([a, b]) => el("tr", {}, el("th", { scope: "row" }, a), el("td", {}, b))))),
        el("p", { class: "small" }, "The face value of a One is 10 and of a Joker 30, otherwise its spots. Kept dice score as a roll of their own, the best way."),
        el("h3", {}, "Keys"),
        el(
          "dl",
          { class: "cu-keys" },
          [
            ["1 – 5", "pick or unpick a die"],
            ["a", "pick all scoring dice"],
            ["r, Space, Enter", "roll (at the start), or keep the picked dice and roll the rest"],
            ["h or b", "hold: bank the turn"],
            ["q", "leave the table (your seat stays yours; asks first while the game is on)"],
            ["F1", "this help"],
          ].map(([k, v]) => [el("dt", {}, el("kbd", {}, k)), el("dd", {}, v)]),
        ),
        leavingHelp(this.ctx.client),
      ],
    });
  }

  destroy() {
    this.tips.destroy();
    clearInterval(this.timer);
    this.timer = null;
  }

  // ---- Moves ----

  myTurn() {
    const o = this.obs;
    return !!o && this.player && o.winner === null && o.current === this.ctx.seat && Array.isArray(o.legal) && o.legal.length > 0;
  }

  send(action) {
    if (this.busy) return;
    this.busy = true;
    this.waitSeq = null;
    this.problem.textContent = "";
    this.ctx.move(action);
    this.render(false);
  }

  /** Shows and says why a move cannot be made. */
  warn(why) {
    this.problem.textContent = why;
    announce(why, { assertive: true });
  }

  /** A local word when the move cannot even be asked for (not this
   *  player's turn); the server's reasons cover the rest. */
  notNow() {
    const o = this.obs;
    if (o.winner !== null) this.warn("The game is over.");
    else if (this.waiting()) this.warn("The game has not started: it waits for the other players.");
    else this.warn(`It is ${this.name(o.current)}'s turn.`);
  }

  toggle(i) {
    const o = this.obs;
    if (!o) return;
    if (!this.myTurn()) return this.notNow();
    if (o.phase !== "Rolled") return this.warn("Roll the dice first.");
    if (o.turn.states[i] !== "Rolled") return this.warn(`Die ${i + 1} is held from an earlier roll; pick among the dice just rolled.`);
    // Said at once, from the keeps the server allows, not after Keep.
    if (!inMask(this.picked, i) && !inMask(this.scoringMask(), i)) return this.warn(`Die ${i + 1}, a ${o.turn.dice[i]}, scores nothing in this roll: it cannot be kept.`);
    this.picked ^= 1 << i;
    this.problem.textContent = "";
    const lacking = this.pickProblem();
    announce(`Die ${i + 1}, ${o.turn.dice[i]}: ${inMask(this.picked, i) ? "keep" : "not kept"}.${lacking ? ` ${lacking}` : ""}`);
    this.render(false);
  }

  /** The dice of this roll that score in some keep the engine allows
   *  (its legal `Keep` masks together): the others cannot be kept. */
  scoringMask() {
    let m = 0;
    for (const a of this.obs?.legal || []) m |= keepMask(a) ?? 0;
    return m;
  }

  /** Whether the picked dice are a keep the engine allows. */
  pickedIsLegal() {
    return (this.obs?.legal || []).some((a) => keepMask(a) === this.picked);
  }

  /** What the picked dice lack to be a keep, in words ("" when they are
   *  one, or nothing is picked): the smallest allowed keep that holds them
   *  says which dice must come with them. */
  pickProblem() {
    if (!this.picked || this.pickedIsLegal()) return "";
    const holding = (this.obs?.legal || []).map(keepMask).filter((m) => m !== null && (m & this.picked) === this.picked);
    holding.sort((a, b) => bitCount(a) - bitCount(b));
    const dice = (m) => DICE.filter((i) => inMask(m, i)).map((i) => i + 1);
    const list = (ns) => (ns.length === 1 ? `die ${ns[0]}` : `dice ${ns.slice(0, -1).join(", ")} and ${ns[ns.length - 1]}`);
    if (!holding.length) return "The picked dice do not score together: unpick some.";
    return `The picked dice score only with ${list(dice(holding[0] & ~this.picked))}: pick ${dice(holding[0] & ~this.picked).length === 1 ? "it" : "them"} too, or unpick.`;
  }

  /** The largest keep the engine allows: every scoring die. */
  allScoring() {
    let best = null;
    for (const a of this.obs?.legal || []) {
      const m = keepMask(a);
      if (m !== null && (best === null || bitCount(m) > bitCount(best))) best = m;
    }
    return best;
  }

  pickAll() {
    if (!this.myTurn()) return this.notNow();
    const m = this.allScoring();
    if (m === null) return this.warn("Roll the dice first.");
    this.picked = m;
    this.problem.textContent = "";
    announce(`Picked all scoring dice: ${DICE.filter((i) => inMask(m, i)).map((i) => `die ${i + 1}`).join(", ")}.`);
    this.render(false);
  }

  roll() {
    if (!this.myTurn()) return this.notNow();
    if (this.obs.phase === "Start") this.send("Roll");
    else this.send({ Keep: this.picked });
  }

  hold() {
    if (!this.myTurn()) return this.notNow();
    this.send("Hold");
  }

  // ---- Events in words ----

  describe(e) {
    const [kind, d] = Object.entries(e)[0] || [];
    const o = this.obs;
    const name = (s) => this.name(s);
    switch (kind) {
      case "Rolled":
        return `${name(d.seat)} rolls ${DICE.filter((i) => inMask(d.rolled, i)).map((i) => DIGIT[d.dice[i]] || d.dice[i]).join(" ")}.`;
      case "Kept": {
        const f = d.forgotten > 0 ? ` (the held dice's ${fmt(d.forgotten)} given up)` : "";
        return `${name(d.seat)} keeps ${combosText(d.combos)}${f}: turn ${fmt(d.turn_points)}.`;
      }
      case "AllFiveScored":
        return `All five dice scored: ${name(d.seat)} rolls all five again.`;
      case "Bust":
        return d.lost > 0 ? `Nothing scores: ${name(d.seat)} loses ${fmt(d.lost)} points.` : `Nothing scores: ${name(d.seat)}'s turn is over.`;
      case "Banked":
        return `${name(d.seat)} holds and banks ${fmt(d.points)}: score ${fmt(d.score)}${d.got_on_board ? ", on board" : ""}.`;
      case "Overtime": {
        const need = fmt(o.settings.overtime_lead);
        if (d.lead === 0) {
          const top = o.players[d.leader]?.score ?? 0;
          const tied = o.players.map((p, s) => (p.score === top ? name(s) : null)).filter(Boolean);
          return `Overtime! ${tied.join(" and ")} are tied at ${fmt(top)}; the winner must lead by ${need}.`;
        }
        return `Overtime! ${name(d.leader)} leads by ${fmt(d.lead)}; the winner must lead by ${need}.`;
      }
      case "TurnStarted":
        if (d.seat === this.ctx.seat) sounds.play("turn");
        return d.seat === this.ctx.seat ? "Your turn: roll the dice." : `${name(d.seat)}'s turn.`;
      case "GameOver":
        return `${name(d.winner)} wins with ${fmt(o.players[d.winner]?.score)} points!`;
      default:
        return "";
    }
  }

  tell(events) {
    if (!events.length) return;
    const lines = [];
    this.tumble = 0;
    for (const e of events) {
      const [kind, d] = Object.entries(e)[0] || [];
      if (kind === "Rolled") {
        this.lastRoll = { seat: d.seat, dice: d.dice, rolled: d.rolled, outcome: "" };
        if (d.seat !== this.ctx.seat) this.tumble = d.rolled;
      } else if (kind === "Bust" && this.lastRoll) this.lastRoll.outcome = `nothing scores${d.lost ? `: ${fmt(d.lost)} lost` : ""}`;
      else if (kind === "Banked" && this.lastRoll) this.lastRoll.outcome = `banked ${fmt(d.points)}`;
      else if (kind === "Overtime") this.overtime = d;
      const line = this.describe(e);
      if (line) lines.push({ line, kind });
    }
    for (const l of lines) this.log.push(l);
    this.log = this.log.slice(-14);
    announce(lines.map((l) => l.line).join(" "), { assertive: false });
  }

  // ---- Drawing ----

  waiting() {
    return !!this.seats && this.seats.some((s) => s.kind === "human" && !s.player);
  }

  render(fresh) {
    const o = this.obs;
    if (!o) return;
    const me = this.ctx.seat;
    const mine = this.myTurn();
    const over = o.winner !== null && o.winner !== undefined;
    const focused = document.activeElement;
    const hadFocus = focused !== document.body && this.root.contains(focused);
    this.top.dataset.phase = over ? "Over" : o.phase;
    this.top.dataset.turn = mine ? "mine" : "other";
    this.top.dataset.busy = String(this.busy);
    this.turnInfo.hidden = over;
    if (this.controls) this.controls.hidden = over;

    // What the dice show: this turn's, else the last roll of the turn before (faded).
    let dice = o.turn.dice;
    let states = o.turn.states;
    let past = false;
    if (o.phase !== "Rolled") {
      if (this.lastRoll) {
        dice = this.lastRoll.dice;
        states = DICE.map((i) => (inMask(this.lastRoll.rolled, i) ? "Rolled" : "Held"));
        past = true;
      } else states = DICE.map(() => "Idle");
    }
    const animate = fresh && this.tumble && !reducedMotion();
    // Which of the dice just rolled score: known to the viewer at its turn.
    const scoring = mine && o.phase === "Rolled" ? this.scoringMask() : null;
    this.diceRow.classList.toggle("past", past);
    this.slots.forEach((s, i) => {
      const state = states[i];
      const held = state === "Held";
      const picked = !past && inMask(this.picked, i);
      const drawn = `${state}:${dice[i]}`;
      if (drawn !== s.shown) {
        const node = svg(state === "Idle" ? BLANK_DIE : dieSvg(dice[i], { held }));
        node.setAttribute("aria-hidden", "true");
        node.removeAttribute("role");
        s.face.replaceChildren(node);
        s.shown = drawn;
      }
      s.die.classList.toggle("held", held);
      s.die.classList.toggle("picked", picked);
      s.die.classList.toggle("idle", state === "Idle");
      const judged = scoring !== null && !past && state === "Rolled" && !picked;
      const scores = judged && inMask(scoring, i);
      const dead = judged && !scores;
      s.die.classList.toggle("no-score", dead);
      const caption = held ? "held" : picked ? "keep" : scores ? "scores" : dead ? "no score" : "";
      s.caption.textContent = caption;
      const face = state === "Idle" ? "not rolled" : dice[i];
      let label = `Die ${i + 1}: ${face}`;
      // The caption in view is in the name (label in name).
      if (held) label += past ? ", held" : ", held from an earlier roll";
      else if (caption) label += `, ${caption}`;
      if (this.player) {
        const usable = mine && !past && o.phase === "Rolled" && state === "Rolled";
        s.die.disabled = !usable || this.busy;
        s.die.setAttribute("aria-pressed", String(picked));
        // Still pressed to hear why, but said to be of no use.
        if (dead) s.die.setAttribute("aria-disabled", "true");
        else s.die.removeAttribute("aria-disabled");
      }
      s.die.setAttribute("aria-label", label);
      s.die.dataset.face = state === "Idle" ? "" : dice[i];
      if (animate && inMask(this.tumble, i)) {
        s.die.classList.remove("tumble", "fade");
        void s.die.offsetWidth; // restarts the animation
        s.die.classList.add(past ? "fade" : "tumble");
      }
    });
    if (fresh) this.tumble = 0;

    // The dice note: whose dice these are.
    if (past && this.lastRoll) {
      this.diceNote.textContent = `${this.name(this.lastRoll.seat)}'s last roll${this.lastRoll.outcome ? `: ${this.lastRoll.outcome}` : ""}.`;
    } else if (o.phase === "Rolled") {
      const held = states.filter((x) => x === "Held").length;
      this.diceNote.textContent = `${this.name(o.current)}'s dice${held ? `: ${held} held from earlier rolls` : ""}.`;
    } else this.diceNote.textContent = "";

    // The turn.
    const pickedCount = bitCount(this.picked);
    const heldCount = o.turn.states.filter((x) => x === "Held").length;
    const items = [
      ["Turn total", fmt(o.turn.points)],
      ["Roll", o.phase === "Start" ? "none yet" : String(o.turn.rolls)],
    ];
    if (mine && o.hold_value !== null && o.hold_value !== undefined) items.push(["Hold now banks", fmt(o.hold_value)]);
    if (mine && o.phase === "Rolled") {
      const left = 5 - heldCount - pickedCount;
      items.push(["Next roll", pickedCount ? `${left === 0 ? 5 : left} ${left === 1 ? "die" : "dice"}${left === 0 ? " (all five scored)" : ""}` : "pick dice to keep"]);
    }
    this.turnInfo.replaceChildren(...items.map(([k, v]) => el("div", {}, el("dt", {}, k), el("dd", {}, v))));

    // The status line.
    let status;
    if (over) status = `${this.name(o.winner)} wins with ${fmt(o.players[o.winner]?.score)} points!`;
    else if (this.waiting()) {
      const free = this.seats.filter((s) => s.kind === "human" && !s.player).length;
      status = `Waiting for ${free === 1 ? "1 more person" : `${free} more people`} to sit: copy the link above and send it.`;
    } else if (mine && o.phase === "Start") status = "Your turn: roll the dice (r).";
    else if (mine) status = "Your turn: pick the dice to keep (1–5, a), then Keep and roll (r); or Hold (h).";
    else if (this.player && o.current === me) status = "Your turn…";
    else status = `${this.name(o.current)} is playing.`;
    this.status.textContent = status;
    this.status.classList.toggle("mine", mine);

    // The buttons.
    if (this.player) {
      const legal = o.legal || [];
      const canRoll = mine && legal.includes("Roll");
      const canKeep = mine && legal.some((a) => keepMask(a) !== null);
      const lacking = mine && o.phase === "Rolled" ? this.pickProblem() : "";
      this.pickNote.textContent = lacking;
      const canHold = mine && legal.includes("Hold");
      this.rollBtn.disabled = !canRoll || this.busy;
      this.keepBtn.disabled = !canKeep || this.busy || !!lacking;
      this.allBtn.disabled = !canKeep || this.busy;
      this.holdBtn.disabled = !canHold || this.busy;
      this.rollBtn.hidden = !canRoll && o.phase === "Rolled";
      this.keepBtn.hidden = o.phase !== "Rolled";
      this.allBtn.hidden = o.phase !== "Rolled";
      this.holdBtn.textContent = canHold ? `Hold: bank ${fmt(o.hold_value)}` : "Hold";
      this.keepBtn.textContent = pickedCount ? `Keep ${pickedCount} and roll ${5 - heldCount - pickedCount || 5}` : "Keep and roll";
      let note = "";
      if (mine && o.phase === "Rolled" && !canHold) {
        const p = o.players[me];
        if (p && !p.on_board) note = `You cannot hold yet: you get on board with a turn of at least ${fmt(o.settings.on_board)}.`;
        else note = `You cannot hold now: the turn that crosses ${fmt(o.settings.target)} needs at least ${fmt(o.settings.off_board)}.`;
      }
      this.holdNote.textContent = note;
    }

    this.renderPlayers(o);
    this.renderLog();
    this.renderOver(o, over);
    this.keepFocus(hadFocus);
  }

  /** A button that was pressed may be disabled or hidden by the move it
   *  made: focus then goes to the next control that may be used (once the
   *  move is answered) rather than to the page's start. */
  keepFocus(hadFocus) {
    if (!this.player) return;
    const active = document.activeElement;
    if (hadFocus && (!active || active === document.body)) this.refocus = true;
    if (!this.refocus) return;
    if (active && active !== document.body) {
      this.refocus = false;
      return;
    }
    const next = [this.rollBtn, this.keepBtn, this.holdBtn].find((b) => !b.hidden && !b.disabled && !this.controls.hidden);
    if (next) {
      next.focus();
      this.refocus = false;
    }
  }

  renderPlayers(o) {
    const s = o.settings;
    const top = Math.max(...o.players.map((p) => p.score));
    const overtime = o.winner === null && top >= s.target;
    const rows = o.players.map((p, i) => {
      const current = o.winner === null && i === o.current && !this.waiting();
      const info = o.seat_info?.[i];
      const seat = this.seats?.[i];
      let name = this.name(i);
      const tags = [];
      if (i === this.ctx.seat) tags.push("you");
      if (info?.kind === "computer" && !/\(away\)$/.test(name)) tags.push("computer");
      // A program playing through its own account is marked as one.
      if (seat?.bot) tags.push(seat.invited ? "bot, invited" : "bot");
      else if (seat && seat.kind === "human" && seat.player && !seat.connected && !seat.away) tags.push("not connected");
      if (seat && seat.kind === "human" && !seat.player) name = "free seat";
      const won = o.winner === i;
      return el(
        "tr",
        { class: [current ? "current" : "", won ? "winner" : "", i === this.ctx.seat ? "me" : ""].join(" ").trim() || null, "aria-current": current ? "true" : null, "data-name": this.name(i) },
        el(
          "th",
          { scope: "row" },
          el("span", { class: "cu-marker", "aria-hidden": "true" }, current ? "▶" : won ? "★" : ""),
          name,
          tags.length ? el("span", { class: "cu-tag" }, ` (${tags.join(", ")})`) : null,
          current ? el("span", { class: "cu-now" }, " playing") : null,
          won ? el("span", { class: "cu-now" }, " winner") : null,
        ),
        el("td", { class: "num" }, fmt(p.score)),
        el("td", {}, p.on_board ? "yes" : "not yet"),
        el("td", { class: "num" }, String(p.turns)),
      );
    });
    this.players.replaceChildren(...rows);
    const parts = [`${s.name} game to ${fmt(s.target)} points.`, `On board: a first turn of ${fmt(s.on_board)}.`, `The winner must lead by ${fmt(s.overtime_lead)}.`];
    if (o.jokers) parts.push("JOKERS dice: 13 sides, with a Joker.");
    this.rules.replaceChildren(...parts.map((t) => el("span", {}, t, " ")));
    if (overtime) {
      const d = this.overtime;
      const text = d && d.lead > 0 ? `Overtime: ${this.name(d.leader)} leads by ${fmt(d.lead)}, needs ${fmt(s.overtime_lead)}.` : `Overtime: the winner must lead by ${fmt(s.overtime_lead)}.`;
      this.rules.append(el("strong", { class: "cu-overtime" }, text));
    }
  }

  renderLog() {
    this.logList.replaceChildren(...this.log.map((l) => el("li", { class: `ev-${l.kind}` }, l.line)));
    this.logList.scrollTop = this.logList.scrollHeight;
  }

  renderOver(o, over) {
    this.over.hidden = !over;
    if (!over) return;
    const you = this.ctx.seat === o.winner;
    this.over.replaceChildren(
      el("h2", {}, you ? "You win!" : `${this.name(o.winner)} wins!`),
      el("p", {}, `Final scores: ${o.players.map((p, i) => `${this.name(i)} ${fmt(p.score)}`).join(", ")}.`),
      el("p", { class: "actions" }, el("a", { class: "button primary", href: "#/scores/cubes", id: "cu-see-rankings" }, "See the rankings"), " ", el("a", { class: "button", href: "#/" }, "Back to the tables"), " ", el("a", { class: "button review-link", href: reviewHref(this.ctx) }, "Review this game")),
    );
  }

  // ---- Other games ----

  async refreshOthers() {
    let list;
    try {
      list = (await this.ctx.client.request({ type: "list" }, "tables")).tables;
    } catch {
      return; // Offline: the panel keeps what it showed.
    }
    if (!this.timer) return;
    const rows = list.filter((t) => t.game === "cubes" && t.id !== this.ctx.table && t.status !== "over");
    if (!rows.length) {
      this.others.replaceChildren(el("p", { class: "empty" }, "No other cubes game right now."));
      return;
    }
    const who = (s) => (s.kind === "computer" ? `${s.player || "computer"}` : s.player || "free seat");
    this.others.replaceChildren(
      el(
        "ul",
        { class: "cu-others" },
        rows.map((t) =>
          el(
            "li",
            {},
            el("a", { href: `#/table/${t.id}?watch`, "aria-label": `Watch table ${t.id}` }, `Table ${t.id}`),
            ` ${t.ruleset}: ${t.seats.map(who).join(", ")}`,
            el("span", { class: "small" }, t.status === "waiting" ? " (waiting for players)" : " (playing)"),
          ),
        ),
      ),
    );
  }
}

/** Mounts the cubes table in `root` (see app.js for the view interface). */
export function mount(root, ctx) {
  return new CubesView(root, ctx);
}
