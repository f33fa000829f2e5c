// Cards and dice as SVG markup: the mille card list (ids, names, kinds, how
// hazards, remedies and safeties pair up), the drawings of every card face,
// the card back, an empty table place, and the cubes dice faces.
// Drawn here from simple shapes; no inline styles (the page's CSP forbids them).

const MI = (miles) => ({ name: String(miles), kind: "distance", miles });
const HZ = (name, remedy, safety) => ({ name, kind: "hazard", remedy, safety });
const RM = (name, hazard, safety) => ({ name, kind: "remedy", hazard, safety });
const SF = (name, ...hazards) => ({ name, kind: "safety", hazards });

/** Every mille card id the server uses, with its name and kind. */
export const CARDS = {
  25: MI(25), 50: MI(50), 75: MI(75), 100: MI(100), 200: MI(200),
  out_of_gas: HZ("Out of Gas", "gasoline", "extra_tank"),
  flat_tire: HZ("Flat Tire", "spare_tire", "puncture_proof"),
  accident: HZ("Accident", "repairs", "driving_ace"),
  speed_limit: HZ("Speed Limit", "end_of_limit", "right_of_way"),
  stop: HZ("Stop", "go", "right_of_way"),
  gasoline: RM("Gasoline", "out_of_gas", "extra_tank"),
  spare_tire: RM("Spare Tire", "flat_tire", "puncture_proof"),
  repairs: RM("Repairs", "accident", "driving_ace"),
  end_of_limit: RM("End of Limit", "speed_limit", "right_of_way"),
  go: RM("Go", "stop", "right_of_way"),
  extra_tank: SF("Extra Tank", "out_of_gas"),
  puncture_proof: SF("Puncture Proof", "flat_tire"),
  driving_ace: SF("Driving Ace", "accident"),
  right_of_way: SF("Right of Way", "speed_limit", "stop"),
};

/** How a hand is sorted: the engine's card-id order (distance 25 up to 200,
 * then hazards, remedies and safeties, each in the order out of gas, flat
 * tire, accident, speed limit, stop), so a hazard, its remedy and its safety
 * sit at the same place within their groups. */
export const HAND_ORDER = [
  "25", "50", "75", "100", "200",
  "out_of_gas", "flat_tire", "accident", "speed_limit", "stop",
  "gasoline", "spare_tire", "repairs", "end_of_limit", "go",
  "extra_tank", "puncture_proof", "driving_ace", "right_of_way",
];

const INK = "#222";
const RED = "#c62828";
const GREEN = "#2e7d32";
const BLUE = "#1f5fae";
const GOLD = "#f2b705";
const GREY = "#9aa0a6";
const FONT = "Helvetica, Arial, sans-serif";

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

// Rough width of bold sans-serif text in em, to squeeze only what would not fit.
const em = (s) => [...s].reduce((w, c) => w + (/[iljtf .,:'!|]/.test(c) ? 0.3 : /[A-Zmw_]/.test(c) ? 0.72 : 0.57), 0);

// Bold centred text, squeezed to `max` units when it would not fit (captions
// must stay on the card at every size).
function text(x, y, size, fill, s, max = 84, weight = 700) {
  const str = String(s);
  const fit = em(str) * size > max ? ` textLength="${max}" lengthAdjust="spacingAndGlyphs"` : "";
  // The spaces keep the words of a card apart for whatever reads its text.
  return ` <text x="${x}" y="${y}" font-size="${size}" font-weight="${weight}" text-anchor="middle" fill="${fill}"${fit}>${esc(str)}</text> `;
}

const svg = (box, cls, title, body) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${box}" role="img" class="${cls}" font-family="${FONT}"><title>${esc(title)}</title>${body}</svg>`;

const at = (x, y, s, body) => `<g transform="translate(${x} ${y}) scale(${s})">${body}</g>`;

// Regular polygon (or star when r2 is given) around the origin, as a points list.
function poly(n, r, rot = 0, r2 = r) {
  const pts = [];
  for (let i = 0; i < 2 * n; i++) {
    const a = ((i * Math.PI) / n) + rot;
    const rr = i % 2 ? r2 : r;
    pts.push(`${(rr * Math.sin(a)).toFixed(1)},${(-rr * Math.cos(a)).toFixed(1)}`);
  }
  return pts.join(" ");
}

// Pictograms, drawn around the origin within about ±30 units.
const can = (fill) =>
  `<path d="M-17,-22V-14M-3,-22V-14M-17,-22H-3" fill="none" stroke="${INK}" stroke-width="4" stroke-linecap="round"/>` +
  `<path d="M6,-13L13,-27L20,-24L15,-10" fill="${fill}" stroke="${INK}" stroke-width="2.5" stroke-linejoin="round"/>` +
  `<rect x="-21" y="-14" width="38" height="42" rx="4" fill="${fill}" stroke="${INK}" stroke-width="2.5"/>` +
  `<path d="M-15,-8L11,22M11,-8L-15,22" stroke="${INK}" stroke-opacity=".35" stroke-width="3"/>`;
const noSign = `<circle r="30" fill="none" stroke="${RED}" stroke-width="6"/><path d="M-21,-21L21,21" stroke="${RED}" stroke-width="6"/>`;
const pump =
  `<rect x="-24" y="-27" width="30" height="52" rx="4" fill="${GREEN}" stroke="${INK}" stroke-width="2.5"/>` +
  `<rect x="-19" y="-21" width="20" height="13" rx="2" fill="#fff" stroke="${INK}" stroke-width="1.5"/>` +
  `<rect x="-29" y="24" width="40" height="6" rx="2" fill="${INK}"/>` +
  `<path d="M6,-6H14Q20,-6 20,0V16Q20,22 25,22Q30,22 30,16V-14L24,-22" fill="none" stroke="${INK}" stroke-width="3.5" stroke-linejoin="round"/>` +
  `<rect x="18" y="-30" width="10" height="10" rx="2" transform="rotate(40 23 -25)" fill="${INK}"/>`;
const tyre =
  `<circle r="28" fill="${INK}"/><circle r="23" fill="none" stroke="#666" stroke-width="3" stroke-dasharray="4 4"/>` +
  `<circle r="14" fill="${GREY}" stroke="#ddd" stroke-width="1.5"/><circle r="5" fill="${INK}"/>`;
const flatTyre =
  `<path d="M-27,6A27,27 0 0 1 27,6Q34,22 22,27H-22Q-34,22 -27,6Z" fill="${INK}"/>` +
  `<path d="M-22,4A22,22 0 0 1 22,4" fill="none" stroke="#666" stroke-width="3" stroke-dasharray="4 4"/>` +
  `<circle cy="8" r="13" fill="${GREY}" stroke="#ddd" stroke-width="1.5"/><circle cy="8" r="4.5" fill="${INK}"/>` +
  `<path d="M-38,28H38" stroke="${INK}" stroke-width="2.5"/>` +
  `<path d="M25,-17l8,-7M30,-7l10,-3M9,-26l2,-8" stroke="${RED}" stroke-width="3" stroke-linecap="round"/>`;
const car =
  `<path d="M-23,7V-2L-14,-4L-8,-13H9L15,-4L23,-2V7Z" fill="#455a80" stroke="${INK}" stroke-width="2" stroke-linejoin="round"/>` +
  `<path d="M-6,-10H1V-4H-11ZM4,-10H8L12,-4H4Z" fill="#cfe3ff"/>` +
  `<circle cx="-12" cy="8" r="5.5" fill="${INK}"/><circle cx="12" cy="8" r="5.5" fill="${INK}"/>`;
const crash =
  `<polygon points="${poly(9, 31, 0.2, 15)}" fill="#ffb300" stroke="${RED}" stroke-width="2.5" stroke-linejoin="round"/>` +
  `<g transform="translate(0 4) rotate(-24)">${car}</g>`;
const wrench =
  `<g transform="rotate(-45)"><path d="M-27,0H4" stroke="${INK}" stroke-width="10" stroke-linecap="round"/>` +
  `<path d="M22,-7A13,13 0 1 0 22,7" fill="none" stroke="${INK}" stroke-width="10"/></g>`;
const wheel =
  `<circle r="25" fill="none" stroke="${INK}" stroke-width="7"/><circle r="8" fill="${INK}"/>` +
  `<path d="M-23,3H23M0,0V23" stroke="${INK}" stroke-width="6"/>`;
// The signs' "50" is drawn, not written: a card's only words are its
// caption, which its accessible name contains (label in name).
const fifty = (ink) =>
  `<path d="M-3,-9H-11L-12,-1Q-9,-3 -6,-3Q0,-3 0,3Q0,9 -6,9Q-10,9 -12,6" fill="none" stroke="${ink}" stroke-width="3.6" stroke-linecap="round" stroke-linejoin="round"/>` +
  `<ellipse cx="8" cy="0" rx="5" ry="8.5" fill="none" stroke="${ink}" stroke-width="3.6"/>`;
const limit = `<circle r="28" fill="#fff" stroke="${RED}" stroke-width="7"/>${fifty(INK)}`;
const endLimit = (() => {
  let lines = "";
  for (const d of [-10, -5, 0, 5, 10]) {
    const h = Math.sqrt(26 * 26 - d * d) * 0.7071;
    const c = d * 0.7071;
    lines += `M${(c + h).toFixed(1)},${(c - h).toFixed(1)}L${(c - h).toFixed(1)},${(c + h).toFixed(1)}`;
  }
  return `<circle r="28" fill="#fff" stroke="${INK}" stroke-width="3"/>${fifty("#777")}` +
    `<path d="${lines}" stroke="${INK}" stroke-width="1.6"/>`;
})();
const priority =
  `<rect x="-21" y="-21" width="42" height="42" rx="2" transform="rotate(45)" fill="#fff" stroke="${INK}" stroke-width="2"/>` +
  `<rect x="-14" y="-14" width="28" height="28" transform="rotate(45)" fill="${GOLD}" stroke="${INK}" stroke-width="1.5"/>`;
const stopSign =
  `<polygon points="${poly(4, 30, Math.PI / 8)}" fill="${RED}" stroke="${INK}" stroke-width="2"/>` +
  `<polygon points="${poly(4, 26, Math.PI / 8)}" fill="none" stroke="#fff" stroke-width="2"/>` +
  `<path d="M-14,0H14" stroke="#fff" stroke-width="5" stroke-linecap="round"/>`;
const goLight =
  `<circle r="30" fill="${INK}"/><circle r="24" fill="#3ccf5a" stroke="#a8f0b6" stroke-width="2"/>` +
  `<path d="M-9,-12L11,0L-9,12Z" fill="${INK}"/>`;

const PICTO = {
  out_of_gas: at(0, 2, 0.8, can("#d5d5d5")) + noSign, gasoline: pump, extra_tank: can(GOLD),
  flat_tire: flatTyre, spare_tire: tyre, puncture_proof: tyre,
  accident: crash, repairs: wrench, driving_ace: wheel,
  speed_limit: limit, end_of_limit: endLimit, right_of_way: priority,
  stop: stopSign, go: goLight,
};

// Per kind: the card tint, the colour, the corner badge and the caption band
// shape. Badge and band shapes differ by kind so colour is never the only cue.
const KIND = {
  hazard: {
    tint: "#fdeaea", col: RED,
    badge: `<path d="M18,9L28,26H8Z" fill="${RED}" stroke="${INK}" stroke-width="1.2" stroke-linejoin="round"/><path d="M18,14V20M18,22.5V23.5" stroke="#fff" stroke-width="2.4"/>`,
    band: "M9,108H91L85,118L91,128H9L15,118Z",
  },
  remedy: {
    tint: "#e7f5e9", col: GREEN,
    badge: `<circle cx="18" cy="18" r="9" fill="${GREEN}" stroke="${INK}" stroke-width="1.2"/><path d="M13.5,18.5L17,22L23,14.5" fill="none" stroke="#fff" stroke-width="2.4"/>`,
    band: "M19,108H81A10,10 0 0 1 81,128H19A10,10 0 0 1 19,108Z",
  },
  safety: {
    tint: "#e6eefb", col: BLUE,
    badge: at(18, 19, 1, `<polygon points="${poly(5, 10, 0, 4.2)}" fill="${GOLD}" stroke="${INK}" stroke-width="1.2" stroke-linejoin="round"/>`),
    band: "M14,108H86L93,118L86,128H14L7,118Z",
  },
};

const SHIELD = "M50,25L80,33V62C80,82 67,95 50,104C33,95 20,82 20,62V33Z";

// The card outline with its tinted inner frame; the coup-fourré border goes on top.
const frame = (tint, col) =>
  `<rect x="2.5" y="2.5" width="95" height="135" rx="9" fill="#fffdf6" stroke="${INK}" stroke-width="2.5"/>` +
  `<rect x="7" y="7" width="86" height="126" rx="5" fill="${tint}" stroke="${col}" stroke-width="2"/>`;
const coupBorder = `<rect x="5" y="5" width="90" height="130" rx="7" fill="none" stroke="${RED}" stroke-width="7"/>`;

const milestone = (x, y, s) =>
  at(x, y, s, `<path d="M-12,16V-4A12,12 0 0 1 12,-4V16Z" fill="#fff" stroke="${INK}" stroke-width="2"/><path d="M-12,-4A12,12 0 0 1 12,-4Z" fill="${RED}" stroke="${INK}" stroke-width="2"/>`);

function distanceBody(miles) {
  const n = String(miles);
  return frame("#f3efe6", "#8a8170") + milestone(18, 18, 0.55) +
    text(50, n.length > 2 ? 70 : 74, n.length > 2 ? 40 : 54, "#1d2733", n, 80, 800) +
    `<path d="M40,82H60L72,104H28Z" fill="#6b6b6b"/><path d="M50,84V88M50,92V97M50,100V104" stroke="#fff" stroke-width="2.2"/>` +
    text(50, 124, 17, "#3d3d3d", "miles", 60);
}

/** SVG markup for a card face; `coup` adds the thick red coup-fourré border. */
export function cardSvg(id, options = {}) {
  const key = String(id);
  const coup = !!(options && options.coup);
  if (!has(CARDS, key)) {
    return svg("0 0 100 140", "card card-unknown", key, frame("#eee", GREY) + text(50, 76, 16, INK, key, 80));
  }
  const card = CARDS[key];
  const title = coup ? `Coup fourré: ${card.name}` : card.name;
  let body;
  if (card.kind === "distance") {
    body = distanceBody(card.miles);
  } else {
    const k = KIND[card.kind];
    const pic = PICTO[key];
    body = frame(k.tint, k.col) + k.badge +
      (card.kind === "safety"
        ? `<path d="${SHIELD}" fill="#fff" stroke="${GOLD}" stroke-width="11" stroke-linejoin="round"/>` +
          `<path d="${SHIELD}" fill="none" stroke="${BLUE}" stroke-width="6" stroke-linejoin="round"/>` + at(50, 61, 0.78, pic)
        : at(50, 63, 1.12, pic)) +
      `<path d="${k.band}" fill="${k.col}" stroke="${INK}" stroke-width="1.2"/>` +
      text(50, 123.5, 14, "#fff", card.name, card.kind === "hazard" ? 64 : 72);
  }
  return svg("0 0 100 140", `card card-${card.kind}${coup ? " card-coup" : ""}`, title, body + (coup ? coupBorder : ""));
}

/** SVG markup for the back of a card (the draw pile). */
export function cardBackSvg() {
  let lattice = "";
  // Lines y = x + c and their mirror images, cut to the inner panel (x 10..90, y 10..130).
  for (let c = -110; c <= 120; c += 12) {
    const y1 = Math.max(10, c + 10), y2 = Math.min(130, c + 90);
    if (y2 > y1) lattice += `M${y1 - c},${y1}L${y2 - c},${y2}M${100 - y1 + c},${y1}L${100 - y2 + c},${y2}`;
  }
  return svg("0 0 100 140", "card card-back", "Card back",
    `<rect x="2.5" y="2.5" width="95" height="135" rx="9" fill="#1f3b63" stroke="${INK}" stroke-width="2.5"/>` +
    `<rect x="10" y="10" width="80" height="120" rx="4" fill="#264a7a" stroke="#f3e3b3" stroke-width="2"/>` +
    `<path d="${lattice}" stroke="#3a629a" stroke-width="1.5"/>` +
    `<ellipse cx="50" cy="70" rx="30" ry="36" fill="#1f3b63" stroke="#f3e3b3" stroke-width="2"/>` +
    milestone(50, 66, 1.35));
}

/** SVG markup for an empty place on the table: a dashed outline and a small label. */
export function emptySlotSvg(label = "") {
  return svg("0 0 100 140", "card card-slot", label || "Empty",
    `<rect x="4" y="4" width="92" height="132" rx="9" fill="none" stroke="#888" stroke-width="2.5" stroke-dasharray="8 6"/>` +
    (label ? text(50, 76, 16, "#666", label, 80, 700) : ""));
}

const PIPS = { One: [4], Two: [2, 6], Three: [2, 4, 6], Four: [0, 2, 6, 8], Five: [0, 2, 4, 6, 8], Six: [0, 2, 3, 5, 6, 8] };
const FACES = ["One", "Two", "Three", "Four", "Five", "Six"];

/** SVG markup for a die showing `face` ("One".."Six" or "Joker"); a held die
 * gets a thick dark border and a padlock, not only a different colour. */
export function dieSvg(face, options = {}) {
  const held = !!(options && options.held);
  let f = String(face);
  if (/^[1-6]$/.test(f)) f = FACES[+f - 1];
  f = f.charAt(0).toUpperCase() + f.slice(1).toLowerCase();
  const base = held
    ? `<rect x="5" y="5" width="90" height="90" rx="16" fill="#dfe5ee" stroke="#1b2a44" stroke-width="8"/>`
    : `<rect x="4" y="4" width="92" height="92" rx="17" fill="#fffdf6" stroke="${INK}" stroke-width="3"/>`;
  let body;
  if (has(PIPS, f)) {
    body = PIPS[f].map((i) => `<circle cx="${27 + (i % 3) * 23}" cy="${27 + Math.floor(i / 3) * 23}" r="${f === "One" ? 12 : 9}" fill="${f === "One" ? RED : INK}"/>`).join("");
  } else if (f === "Joker") {
    body = at(50, 52, 1, `<polygon points="${poly(5, 32, 0, 14)}" fill="${GOLD}" stroke="${INK}" stroke-width="2.5" stroke-linejoin="round"/>`) +
      `<path d="M55,42V61Q55,69 48,69Q43,69 42,64" fill="none" stroke="${INK}" stroke-width="5.5" stroke-linecap="round"/>`;
  } else {
    f = String(face);
    body = text(50, 62, 30, INK, "?", 60, 800);
  }
  // A small padlock at the bottom edge, between the bottom pips.
  const lock = held
    ? `<path d="M45,79V75A5,5 0 0 1 55,75V79" fill="none" stroke="#1b2a44" stroke-width="2.8"/><rect x="41.5" y="78" width="17" height="12" rx="2" fill="#1b2a44"/>`
    : "";
  return svg("0 0 100 100", `die${held ? " die-held" : ""}`, held ? `${f} (held)` : f, base + body + lock);
}
