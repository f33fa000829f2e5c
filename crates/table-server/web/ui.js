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
 *  value, primary}]). Resolves with the value of the button chosen (or
 *  null when closed with Escape). Focus goes to the first primary button
 *  and comes back where it was when the dialog closes. */
export function dialog({ title, body = [], buttons = [{ label: "Close", value: null, primary: true }], className = "" }) {
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
    d.addEventListener("close", () => {
      d.remove();
      if (back && back.isConnected) back.focus();
    });
    document.body.append(d);
    d.showModal();
    (first || row.firstElementChild)?.focus();
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
