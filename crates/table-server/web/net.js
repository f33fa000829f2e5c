// The page's link to the table server: one WebSocket speaking the table
// protocol (docs/table-protocol.md), the name and its token in the
// browser's storage, and reconnection: after a drop it connects again by
// itself, takes back every seat and watch with the last sequence number
// seen, and sends again the moves whose answer never came, with their ids,
// so that none is applied twice.

const STORE = "table-identity";
const PROTOCOL = 1;
const CLIENT = "web 1";

/** The names this browser has played under on this server, with their
 *  tokens (a token is the only proof of a name: lose it and the name is
 *  lost), and the last one used. */
export function loadIdentity() {
  try {
    const v = JSON.parse(localStorage.getItem(STORE) || "{}");
    return { last: typeof v.last === "string" ? v.last : "", tokens: v.tokens && typeof v.tokens === "object" ? v.tokens : {} };
  } catch {
    return { last: "", tokens: {} };
  }
}

function saveIdentity(id) {
  try {
    localStorage.setItem(STORE, JSON.stringify(id));
  } catch {
    // Private windows may refuse storage: the name then lasts as long as the page.
  }
}

/** The name rules of the server: 1 to 24 letters, digits, spaces and
 *  - _ . ' ; no space at either end. Answers the reason, or "". */
export function nameProblem(name) {
  if (!name) return "Type a name.";
  if ([...name].length > 24) return "A name has at most 24 characters.";
  if (name.trim() !== name) return "A name does not start or end with a space.";
  if (!/^[\p{L}\p{N} _.'-]+$/u.test(name)) return "A name has only letters, digits, spaces and - _ . '";
  return "";
}

/** The connection. Events (listen with `on`): `state` ({state, attempt,
 *  heldFor}), `welcome`, `identity` (the name was refused: {code,
 *  message}), `message` (every server message), and one per message
 *  type (`tables`, `update`, `ack`, `error`, ...). */
export class Client {
  constructor(url = defaultUrl()) {
    this.url = url;
    this.identity = loadIdentity();
    this.name = "";
    this.welcome = null;
    this.state = "idle";
    this.attempt = 0;
    /** Tables followed: id -> {mode: "seat"|"watch", seat, code, seq}. */
    this.tables = new Map();
    /** Moves sent and not answered: id -> {table, action}. */
    this.pending = new Map();
    this.requests = [];
    this.handlers = new Map();
    this.nextId = Date.now();
    this.ws = null;
    this.timer = null;
    this.pinger = null;
    this.droppedAt = 0;
  }

  on(type, fn) {
    if (!this.handlers.has(type)) this.handlers.set(type, new Set());
    this.handlers.get(type).add(fn);
    return () => this.handlers.get(type)?.delete(fn);
  }

  emit(type, value) {
    for (const fn of this.handlers.get(type) || []) {
      try {
        fn(value);
      } catch (e) {
        console.error(e);
      }
    }
  }

  setState(state) {
    this.state = state;
    const away = this.welcome?.limits?.away_seconds ?? 60;
    const heldFor = this.droppedAt ? Math.max(0, Math.ceil(away - (Date.now() - this.droppedAt) / 1000)) : away;
    this.emit("state", { state, attempt: this.attempt, heldFor, seated: [...this.tables.values()].some((t) => t.mode === "seat") });
  }

  /** Connects under `name` (its token, if this browser has one, is sent
   *  too). */
  start(name) {
    this.name = name;
    this.stopped = false;
    this.connect();
  }

  connect() {
    clearTimeout(this.timer);
    this.setState(this.attempt ? "reconnecting" : "connecting");
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      const hello = { type: "hello", version: PROTOCOL, name: this.name, client: CLIENT };
      const token = this.identity.tokens[this.name];
      if (token) hello.token = token;
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (e) => {
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      this.receive(msg);
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      clearInterval(this.pinger);
      for (const r of this.requests.splice(0)) r.reject(new Error("the connection dropped"));
      if (this.stopped) return;
      if (!this.droppedAt && this.welcome) this.droppedAt = Date.now();
      this.closeReason = e.reason || "";
      this.retry();
    };
  }

  retry() {
    this.attempt += 1;
    this.setState("reconnecting");
    // Quickly at first (a server restart takes a moment), then every few seconds.
    const delay = Math.min(5000, 250 * 2 ** Math.min(this.attempt - 1, 5));
    this.timer = setTimeout(() => this.connect(), delay);
    this.ticker ||= setInterval(() => {
      if (this.state === "reconnecting") this.setState("reconnecting");
      else {
        clearInterval(this.ticker);
        this.ticker = null;
      }
    }, 1000);
  }

  /** Stops for good (a name refused, or the page leaving). */
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    if (this.ws) this.ws.close();
    this.ws = null;
    this.setState("closed");
  }

  receive(msg) {
    switch (msg.type) {
      case "welcome":
        this.onWelcome(msg);
        break;
      case "joined":
      case "watching":
      case "update": {
        const t = this.tables.get(msg.table);
        if (t && typeof msg.seq === "number") t.seq = msg.seq;
        if (t && msg.type === "joined") {
          t.mode = "seat";
          t.seat = msg.seat;
        }
        break;
      }
      case "ack":
        this.pending.delete(msg.id);
        break;
      case "error":
        if (msg.id !== undefined) this.pending.delete(msg.id);
        if (!this.welcome && ["name_taken", "bad_token", "bad_name", "version"].includes(msg.code)) {
          this.stop();
          this.emit("identity", msg);
          return;
        }
        if (msg.table !== undefined && msg.id === undefined && ["no_such_table", "game_over", "unavailable"].includes(msg.code)) {
          // A table that is gone is not followed again after a reconnection.
          const t = this.tables.get(msg.table);
          if (t && !t.asking) this.tables.delete(msg.table);
        }
        break;
      case "left":
        this.tables.delete(msg.table);
        break;
    }
    this.answer(msg);
    this.emit("message", msg);
    // onWelcome has told of the welcome already (with `reconnected`).
    if (msg.type !== "welcome") this.emit(msg.type, msg);
  }

  onWelcome(msg) {
    this.welcome = msg;
    this.name = msg.name;
    this.identity.last = msg.name;
    this.identity.tokens[msg.name] = msg.token;
    saveIdentity(this.identity);
    const wasDropped = this.attempt > 0;
    this.attempt = 0;
    this.droppedAt = 0;
    clearInterval(this.pinger);
    const every = Math.max(1, (msg.limits?.idle_seconds ?? 120) / 3) * 1000;
    this.pinger = setInterval(() => this.send({ type: "ping" }), every);
    this.setState("open");
    // Take back what this page had: seats with the moves seen, watches.
    for (const [table, t] of this.tables) {
      const m = { type: t.mode === "seat" ? "join" : "watch", table, since: t.seq };
      if (t.mode === "seat" && t.seat !== undefined) m.seat = t.seat;
      if (t.code) m.code = t.code;
      this.send(m);
    }
    for (const [id, p] of this.pending) this.send({ type: "move", table: p.table, id, action: p.action });
    this.emit("welcome", { ...msg, reconnected: wasDropped });
  }

  /** Sends a message if the link is up; answers whether it went. */
  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** Sends `msg` and resolves with the answer of type `okType`, or
   *  rejects with the `error` that refused it. The server answers a
   *  connection's requests in order; updates may come between. */
  request(msg, okType) {
    return new Promise((resolve, reject) => {
      if (!this.send(msg)) {
        reject(Object.assign(new Error("not connected to the server"), { code: "offline" }));
        return;
      }
      this.requests.push({ okType, resolve, reject });
    });
  }

  answer(msg) {
    if (!this.requests.length) return;
    const head = this.requests[0];
    if (msg.type === head.okType) {
      this.requests.shift();
      head.resolve(msg);
    } else if (msg.type === "error" && msg.id === undefined && msg.code !== "rate_limited") {
      this.requests.shift();
      head.reject(Object.assign(new Error(msg.message), { code: msg.code, table: msg.table }));
    }
  }

  /** Takes a seat (`seat` undefined: the one this name holds there, else
   *  the first free one). Resolves with `joined`. */
  async join(table, { seat, code } = {}) {
    const m = { type: "join", table };
    if (seat !== undefined && seat !== null) m.seat = seat;
    if (code) m.code = code;
    const known = this.tables.get(table);
    if (known?.seq !== undefined && known.mode === "seat") m.since = known.seq;
    this.tables.set(table, { ...(known || {}), mode: "seat", seat, code, asking: true });
    try {
      const joined = await this.request(m, "joined");
      Object.assign(this.tables.get(table) || {}, { seat: joined.seat, seq: joined.seq, asking: false });
      return joined;
    } catch (e) {
      if (!known) this.tables.delete(table);
      else this.tables.set(table, known);
      throw e;
    }
  }

  /** Follows a table as a spectator. Resolves with `watching`. */
  async watch(table, { code } = {}) {
    const m = { type: "watch", table };
    if (code) m.code = code;
    this.tables.set(table, { mode: "watch", code, asking: true });
    try {
      const w = await this.request(m, "watching");
      Object.assign(this.tables.get(table) || {}, { seq: w.seq, asking: false });
      return w;
    } catch (e) {
      this.tables.delete(table);
      throw e;
    }
  }

  /** Stops following a table (its seat, after the game started, stays
   *  this name's). */
  leave(table) {
    this.tables.delete(table);
    for (const [id, p] of this.pending) if (p.table === table) this.pending.delete(id);
    this.send({ type: "leave", table });
  }

  /** Sends a move; answers its id (the `ack` or `error` carries it). A
   *  move made while the link is down goes when it is back. */
  move(table, action) {
    const id = ++this.nextId;
    this.pending.set(id, { table, action });
    this.send({ type: "move", table, id, action });
    return id;
  }

  /** Says this seat is ready for the next hand. */
  ready(table) {
    this.send({ type: "ready", table });
  }

  /** Forgets the name's token in this browser (the name can then be
   *  taken by nobody but a holder of the token). */
  forget(name) {
    delete this.identity.tokens[name];
    if (this.identity.last === name) this.identity.last = "";
    saveIdentity(this.identity);
  }
}

/** The server's WebSocket address, from the page's own. */
export function defaultUrl() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}/ws`;
}
