// Small pieces every screen of the page uses: building elements, the live
// region that tells a screen reader what happened, and modal dialogs.

/** Makes an element: `el("button", {class: "x", onclick: f}, "text", child)`.
 *  Attributes named `on...` become listeners; `null`/`false` ones are left
 *  out; children may be strings, nodes, arrays or null. */
export function el(tag, attrs = {}, ...children) {
  const node = tag.includes(":")
    ? document.createElementNS("http://www.w3.org/2000/svg", tag.split(":")[1])
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(node, c);
    else node.append(c instanceof Node ? c : String(c));
  }
}

/** Parses trusted SVG markup made by the page itself (cards, dice). */
export function svg(markup) {
  const t = document.createElement("template");
  t.innerHTML = markup.trim();
  return t.content.firstElementChild;
}

/** Tells assistive technology what just happened (moves, refusals): a
 *  polite live region, or an assertive one for what must interrupt. */
export function announce(text, { assertive = false } = {}) {
  const region = document.getElementById(assertive ? "alert" : "announce");
  if (!region || !text) return;
  const p = el("p", {}, text);
  region.append(p);
  // Keep the region short: screen readers only read what is added.
  while (region.childElementCount > 6) region.firstElementChild.remove();
}

/** Whether the player asked for less motion. */
export function reducedMotion() {
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}

/** Opens a modal dialog: `title`, `body` (nodes), `buttons` ([{label,
 *  value, primary}]), `keys` ({key: value}: a letter typed in the dialog
 *  answers as its button would). Resolves with the value of the button
 *  chosen (or null when closed with Escape). Focus goes to the first
 *  primary button and comes back where it was when the dialog closes. */
export function dialog({ title, body = [], buttons = [{ label: "Close", value: null, primary: true }], className = "", keys = {} }) {
  return new Promise((resolve) => {
    const back = document.activeElement;
    const heading = el("h2", { id: `dlg-${Date.now()}` }, title);
    const d = el("dialog", { class: `dlg ${className}`, "aria-labelledby": heading.id });
    const row = el("div", { class: "dlg-buttons" });
    let first = null;
    for (const b of buttons) {
      const btn = el(
        "button",
        {
          type: "button",
          class: b.primary ? "primary" : null,
          onclick: () => {
            d.close();
            resolve(b.value);
          },
        },
        b.label,
      );
      if (b.primary && !first) first = btn;
      row.append(btn);
    }
    d.append(heading, el("div", { class: "dlg-body" }, body), row);
    d.addEventListener("cancel", () => resolve(null));
    d.addEventListener("keydown", (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typing(e)) return;
      const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
      if (!Object.hasOwn(keys, k)) return;
      // Answered here: the page's own keys do not see it.
      e.preventDefault();
      e.stopPropagation();
      d.close();
      resolve(keys[k]);
    });
    d.addEventListener("close", () => {
      d.remove();
      if (back && back.isConnected) back.focus();
    });
    document.body.append(d);
    d.showModal();
    // The focus on the buttons at the end, the view at the start: a long
    // dialog (a help) opens on its first lines, not scrolled to its end.
    (first || row.firstElementChild)?.focus({ preventScroll: true });
    d.scrollTop = 0;
  });
}

/** Whether a keyboard event was typed into a text field (so that game
 *  keys leave it alone). */
export function typing(e) {
  const t = e.target;
  return t instanceof HTMLElement && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName));
}

/** The server's rankings of a game as blocks of text (cubes: Standard
 *  and Blitz games; mille: the high-score table). */
export async function rankingNodes(client, game) {
  const kinds = game === "cubes" ? ["Standard", "Blitz"] : [null];
  const nodes = [];
  for (const kind of kinds) {
    const m = { type: "rankings", game };
    if (kind) m.kind = kind;
    try {
      const r = await client.request(m, "rankings");
      nodes.push(el("pre", { class: "rankings", tabindex: "0" }, r.text));
    } catch (e) {
      nodes.push(el("p", { role: "alert" }, e.message));
    }
  }
  return nodes;
}

/** Tips: the text of an element marked `data-tip`, shown when the
 *  pointer rests on it (a mouse, a pen) or a finger presses it long, as
 *  Mile Bones shows what a place is for. `textFor(key, element)` answers
 *  [title, text...] or null. A long press does not also click. Answers
 *  {destroy()}. */
export function tips(root, textFor) {
  let box = document.getElementById("tip");
  if (!box) {
    box = el("div", { id: "tip", class: "tip", role: "tooltip", hidden: true });
    document.body.append(box);
  }
  let timer = null;
  let shown = null;
  let press = null;
  let swallow = false;
  // A press just ended (a card dropped): what it shows (a refusal) is not
  // hidden by a tip at once.
  let released = 0;
  const target = (e) => {
    const t = e.target?.closest?.("[data-tip]");
    return t && root.contains(t) ? t : null;
  };
  let waiting = null;
  const hide = () => {
    clearTimeout(timer);
    timer = null;
    waiting = null;
    box.hidden = true;
    shown = null;
  };
  const show = (t) => {
    const text = t.isConnected ? textFor(t.dataset.tip, t) : null;
    if (!text?.length) return;
    const [title, ...paras] = text;
    box.replaceChildren(el("strong", {}, title), ...paras.map((p) => el("p", {}, p)));
    box.hidden = false;
    shown = t;
    // Under the element, else over it; always inside the screen.
    const r = t.getBoundingClientRect();
    const b = box.getBoundingClientRect();
    const w = document.documentElement.clientWidth;
    const below = r.bottom + 8 + b.height <= window.innerHeight || r.top - 8 - b.height < 0;
    box.style.left = `${Math.max(6, Math.min(w - b.width - 6, r.left + r.width / 2 - b.width / 2)) + window.scrollX}px`;
    box.style.top = `${(below ? r.bottom + 8 : r.top - 8 - b.height) + window.scrollY}px`;
  };
  // A mouse or a pen resting on an element: timed from a move, not from
  // "over", so that a screen drawn under a pointer that does not move (a
  // table opened under the last click) shows no tip by itself.
  const rest = (e) => {
    if (e.pointerType === "touch" || e.buttons) return;
    const t = target(e);
    if (!t || t === shown || t === waiting) return;
    hide();
    waiting = t;
    timer = setTimeout(() => {
      waiting = null;
      show(t);
    }, 600 + Math.max(0, released + 1500 - Date.now()));
  };
  const on = {
    pointerout: (e) => {
      if (e.pointerType === "touch") return;
      const t = target(e);
      const to = e.relatedTarget?.closest?.("[data-tip]");
      if (t && t !== to) hide();
    },
    pointerdown: (e) => {
      hide();
      const t = target(e);
      if (e.pointerType !== "touch" || !t) return;
      press = { x: e.clientX, y: e.clientY, id: e.pointerId };
      timer = setTimeout(() => {
        show(t);
        swallow = !!shown;
      }, 550);
    },
    pointermove: (e) => {
      if (press && e.pointerId === press.id && Math.hypot(e.clientX - press.x, e.clientY - press.y) > 10) {
        press = null;
        if (!shown) hide();
      }
      rest(e);
    },
    pointerup: () => {
      press = null;
      released = Date.now();
      if (!shown) hide();
    },
    click: (e) => {
      // The click a long press ends with only closes its tip.
      if (!swallow) return;
      swallow = false;
      e.stopPropagation();
      e.preventDefault();
    },
    contextmenu: (e) => {
      if (target(e) && (press || shown)) e.preventDefault();
    },
  };
  for (const [k, f] of Object.entries(on)) root.addEventListener(k, f, k === "click");
  const away = () => hide();
  window.addEventListener("keydown", away);
  window.addEventListener("scroll", away, true);
  return {
    hide,
    destroy() {
      hide();
      for (const [k, f] of Object.entries(on)) root.removeEventListener(k, f, k === "click");
      window.removeEventListener("keydown", away);
      window.removeEventListener("scroll", away, true);
    },
  };
}

const SOUND_KEY = "page-sounds";

/** The cues, as notes: [frequency in Hz, start and length in seconds]. */
const CUES = {
  // A hazard: two low falling notes, a horn.
  hazard: { wave: "sawtooth", notes: [[311, 0, 0.18], [233, 0.17, 0.3]] },
  // A coup fourré: a quick rising arpeggio.
  coup: { wave: "triangle", notes: [[523, 0, 0.1], [659, 0.09, 0.1], [784, 0.18, 0.1], [1047, 0.27, 0.28]] },
  // A trip completed: a chord that rings.
  trip: { wave: "triangle", notes: [[392, 0, 0.6], [494, 0.08, 0.55], [587, 0.16, 0.5], [784, 0.24, 0.7]] },
  // The viewer's turn: a soft double ding.
  turn: { wave: "sine", notes: [[880, 0, 0.12], [1175, 0.13, 0.2]] },
};

let audio = null;

/** The page's sounds, made with WebAudio (no files): off until the
 *  player turns them on, a choice the browser remembers. With reduced
 *  motion asked for, each cue is one short soft tone instead of a tune.
 *  Each cue played is noted on <body> (data-sound-last, -style, -count). */
export const sounds = {
  get on() {
    try {
      return localStorage.getItem(SOUND_KEY) === "1";
    } catch {
      return false;
    }
  },
  set(on) {
    try {
      localStorage.setItem(SOUND_KEY, on ? "1" : "0");
    } catch {
      // Storage refused: the choice lasts as long as the page.
    }
    this.forced = on;
    if (on) this.context();
  },
  /** Whether sounds are on (the stored choice, or this page's). */
  get enabled() {
    return this.forced ?? this.on;
  },
  context() {
    const AC = window.AudioContext || window.webkitAudioContext;
    if (!AC) return null;
    audio ??= new AC();
    // A page opened with sounds on may start them only after a gesture.
    if (audio.state === "suspended") audio.resume().catch(() => {});
    return audio;
  },
  play(cue) {
    const c = CUES[cue];
    if (!c || !this.enabled || document.hidden) return;
    const ctx = this.context();
    if (!ctx) return;
    const plain = reducedMotion();
    const notes = plain ? [[c.notes[0][0], 0, 0.12]] : c.notes;
    const t0 = ctx.currentTime + 0.02;
    for (const [f, at, len] of notes) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = plain ? "sine" : c.wave;
      osc.frequency.value = f;
      const peak = plain ? 0.05 : 0.09;
      gain.gain.setValueAtTime(0.0001, t0 + at);
      gain.gain.exponentialRampToValueAtTime(peak, t0 + at + 0.015);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + at + len);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t0 + at);
      osc.stop(t0 + at + len + 0.05);
    }
    const d = document.body.dataset;
    d.soundLast = cue;
    d.soundStyle = plain ? "plain" : "full";
    d.soundCount = String(Number(d.soundCount || 0) + 1);
  },
};

/** A rating as the lobby shows it: "1540", or "1540?" while provisional
 *  (the server says which). */
export function ratingLabel(r) {
  if (!r || typeof r.rating !== "number") return "";
  return `${r.rating}${r.provisional ? "?" : ""}`;
}

/** The help's section "When someone leaves": what the server does when a
 *  person leaves a game in progress (its away time from `welcome`). */
export function leavingHelp(client) {
  const away = client?.welcome?.limits?.away_seconds ?? 60;
  return [
    el("h3", {}, "When someone leaves"),
    el(
      "ul",
      {},
      el("li", {}, "A seat stays its player's when they close the page or lose the connection: they come back to it from the tables (“Back to my seat”)."),
      el("li", {}, "While nobody is at the table, the game is paused: no computer plays for anybody. A table left paused for long is closed without a result for anyone."),
      el("li", {}, `While somebody else is still there, everybody sees who left and a countdown; after ${away} seconds a computer plays for the absent player until they come back, and its moves are marked in the game's record.`),
      el("li", {}, "A player who is not back at the table when the game ends, or for whom the computer made more than a quarter of the moves, has abandoned the game: it counts as a loss in the ratings and enters no high-score table. The others' results count as usual."),
      el("li", {}, "Coming back: after you sign in again, the tables list tells how each table you had left ended."),
      el("li", {}, "A rated table's result moves its players' ratings (shown beside each name in the tables list; a ? marks a rating not yet settled, and the Ladder lists them all); a casual table's result does not."),
    ),
  ];
}
