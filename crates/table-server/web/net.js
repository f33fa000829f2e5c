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

/** The name rules of the server: 1 to 31 letters, digits, spaces and
 *  - _ . ' ; no space at either end. Answers the reason, or "". */
export function nameProblem(name) {
  if (!name) return "Type a name.";
  if ([...name].length > 31) return "A name has at most 31 characters.";
  if (name.trim() !== name) return "A name does not start or end with a space.";
  if (!/^[\p{L}\p{N} _.'-]+$/u.test(name)) return "A name has only letters, digits, spaces and - _ . '";
  return "";
}

/** The errors each request may be refused with (others about the same
 *  table come from messages nobody waits for, such as a `leave`). */
const REFUSALS = {
  join: ["no_such_table", "no_such_seat", "seat_taken", "table_full", "game_over", "unavailable", "bad_message"],
  watch: ["no_such_table", "unavailable", "bad_message"],
  create: ["bad_setup", "unavailable", "bad_message"],
  rankings: ["unavailable", "bad_message"],
  new_token: ["unavailable", "bad_message"],
  sign_out: ["unavailable", "bad_message"],
  list: [],
};
/** How long a request waits for its answer (one dropped by the rate
 *  limit never gets one). */
const REQUEST_TIMEOUT_MS = 10000;

/** The connection. Events (listen with `on`): `state` ({state, attempt,
 *  heldFor, seated}), `welcome` (with `reconnected`), `identity` (the name
 *  was refused: {code, message}), `message` (every server message), and
 *  one per message type (`tables`, `update`, `ack`, `error`, ...). */
export class Client {
  constructor(url = defaultUrl()) {
    this.url = url;
    this.name = "";
    /** The last `welcome` (its seats and games; kept while the link is down). */
    this.welcome = null;
    /** Whether this connection has been welcomed: messages wait for it. */
    this.online = false;
    this.state = "idle";
    this.attempt = 0;
    /** Tables followed: id -> {mode: "seat"|"watch", seat, code, seq, asking}. */
    this.tables = new Map();
    /** Moves sent and not answered: id -> {table, action}. */
    this.pending = new Map();
    /** Requests waiting for their answer, oldest first. */
    this.requests = [];
    this.handlers = new Map();
    this.nextId = Date.now();
    this.ws = null;
    this.timer = null;
    this.pinger = null;
    this.ticker = null;
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
      // Read again: another tab of this browser may have played since.
      const token = loadIdentity().tokens[this.name];
      this.sentToken = token;
      if (token) hello.token = token;
      else if (this.welcome?.name === this.name) {
        // This name was welcomed here and its key is gone: another tab
        // signed out. Without a key, the hello would take a free name again.
        this.reset();
        this.emit("identity", { code: "signed_out", message: `You signed out of "${this.name}".` });
        return;
      }
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
      const wasOnline = this.online;
      this.online = false;
      clearInterval(this.pinger);
      this.rejectAll("the connection dropped");
      if (this.stopped) return;
      if (!this.droppedAt && wasOnline) this.droppedAt = Date.now();
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
    // The seat's countdown, once a second while the link is down.
    this.ticker ||= setInterval(() => {
      if (this.state === "reconnecting") this.setState("reconnecting");
      else {
        clearInterval(this.ticker);
        this.ticker = null;
      }
    }, 1000);
  }

  /** Stops for good (a name refused, another name, or the page leaving). */
  stop() {
    this.stopped = true;
    this.online = false;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
    this.rejectAll("the connection was closed");
    this.setState("closed");
  }

  /** Forgets everything of the last name: for playing under another. */
  reset() {
    this.stop();
    this.welcome = null;
    this.attempt = 0;
    this.droppedAt = 0;
    this.tables.clear();
    this.pending.clear();
  }

  rejectAll(why) {
    for (const r of this.requests.splice(0)) {
      clearTimeout(r.timer);
      r.reject(Object.assign(new Error(why), { code: "offline" }));
    }
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
        if (!this.online && ["name_taken", "bad_token", "bad_name", "version"].includes(msg.code)) {
          this.stop();
          this.emit("identity", msg);
          return;
        }
        if (msg.table !== undefined && msg.id === undefined && ["no_such_table", "game_over"].includes(msg.code)) {
          // A table that is gone (a rejoin after a drop, a move to it) is
          // not followed again, and its moves are not sent again.
          const t = this.tables.get(msg.table);
          if (t && !t.asking) this.tables.delete(msg.table);
          for (const [id, p] of this.pending) if (p.table === msg.table) this.pending.delete(id);
        }
        break;
      case "token": {
        // The old token is revoked already: only this one signs in now.
        const identity = loadIdentity();
        identity.tokens[this.name] = msg.token;
        saveIdentity(identity);
        break;
      }
      case "signed_out":
        // The server closes the connection next: no reconnecting with a
        // token that is revoked.
        this.forget(this.name);
        this.stopped = true;
        break;
      case "left": {
        // A `left` for an earlier leave must not drop a join made since.
        const t = this.tables.get(msg.table);
        if (t && !t.asking) this.tables.delete(msg.table);
        break;
      }
    }
    this.answer(msg);
    this.emit("message", msg);
    // onWelcome has told of the welcome already (with `reconnected`).
    if (msg.type !== "welcome") this.emit(msg.type, msg);
  }

  onWelcome(msg) {
    this.welcome = msg;
    this.online = true;
    this.name = msg.name;
    // Into a fresh copy: another tab may have kept a name of its own.
    const identity = loadIdentity();
    identity.last = msg.name;
    identity.tokens[msg.name] = msg.token;
    saveIdentity(identity);
    const wasDropped = this.attempt > 0;
    this.attempt = 0;
    this.droppedAt = 0;
    clearInterval(this.pinger);
    const every = Math.max(1, (msg.limits?.idle_seconds ?? 120) / 3) * 1000;
    this.pinger = setInterval(() => this.send({ type: "ping" }), every);
    this.setState("open");
    // Take back what this page had: seats with the moves seen, watches.
    for (const [table, t] of this.tables) {
      const m = { type: t.mode === "seat" ? "join" : "watch", table };
      if (t.seq !== undefined) m.since = t.seq;
      if (t.mode === "seat" && t.seat !== undefined && t.seat !== null) m.seat = t.seat;
      if (t.code) m.code = t.code;
      this.send(m);
    }
    for (const [id, p] of this.pending) this.send({ type: "move", table: p.table, id, action: p.action });
    this.emit("welcome", { ...msg, reconnected: wasDropped });
  }

  /** Sends a message once the connection is welcomed; answers whether it
   *  went. */
  send(msg) {
    if (!this.online || !this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** Sends `msg` and resolves with its answer, a message of type `okType`
   *  (about the same table, if it names one), or rejects with the `error`
   *  that refused it. The server may answer lobby requests before table
   *  ones, so answers are matched by type and table, not by order. */
  request(msg, okType) {
    return new Promise((resolve, reject) => {
      if (!this.send(msg)) {
        reject(Object.assign(new Error("not connected to the server"), { code: "offline" }));
        return;
      }
      const r = { okType, table: msg.table, refusals: REFUSALS[msg.type] || [], resolve, reject };
      r.timer = setTimeout(() => {
        this.requests = this.requests.filter((x) => x !== r);
        reject(Object.assign(new Error("the server did not answer"), { code: "timeout" }));
      }, REQUEST_TIMEOUT_MS);
      this.requests.push(r);
    });
  }

  answer(msg) {
    let i = -1;
    if (msg.type === "error") {
      if (msg.id !== undefined) return;
      i = this.requests.findIndex((r) => r.table === msg.table && r.refusals.includes(msg.code));
    } else {
      // `joined` and `watching` name their table by number (`created`
      // carries a whole table, and answers a request that names none).
      const table = typeof msg.table === "number" ? msg.table : undefined;
      i = this.requests.findIndex((r) => r.okType === msg.type && (r.table === undefined || r.table === table));
    }
    if (i < 0) return;
    const [r] = this.requests.splice(i, 1);
    clearTimeout(r.timer);
    if (msg.type === "error") r.reject(Object.assign(new Error(msg.message), { code: msg.code, table: msg.table }));
    else r.resolve(msg);
  }

  /** Takes a seat (`seat` undefined: the one this name holds there, else
   *  the first free one). Resolves with `joined`. */
  async join(table, { seat, code } = {}) {
    const m = { type: "join", table };
    if (seat !== undefined && seat !== null) m.seat = seat;
    if (code) m.code = code;
    const known = this.tables.get(table);
    if (known?.seq !== undefined && known.mode === "seat") m.since = known.seq;
    const entry = { ...(known || {}), mode: "seat", seat, code, asking: true };
    this.tables.set(table, entry);
    try {
      const joined = await this.request(m, "joined");
      Object.assign(entry, { seat: joined.seat, seq: joined.seq, asking: false });
      return joined;
    } catch (e) {
      if (this.tables.get(table) === entry) {
        if (known) this.tables.set(table, known);
        else this.tables.delete(table);
      }
      throw e;
    }
  }

  /** Follows a table as a spectator. Resolves with `watching`. */
  async watch(table, { code } = {}) {
    const m = { type: "watch", table };
    if (code) m.code = code;
    const entry = { mode: "watch", code, asking: true };
    this.tables.set(table, entry);
    try {
      const w = await this.request(m, "watching");
      Object.assign(entry, { seq: w.seq, asking: false });
      return w;
    } catch (e) {
      if (this.tables.get(table) === entry) this.tables.delete(table);
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

  /** Replaces the name's token on the server (the old one then signs in
   *  nowhere); the new one is kept. Resolves with `token`. */
  newToken() {
    return this.request({ type: "new_token" }, "token");
  }

  /** Revokes the name's token on the server and forgets it here; the
   *  connection ends. Resolves with `signed_out`. */
  async signOut() {
    const answer = await this.request({ type: "sign_out" }, "signed_out");
    this.reset();
    this.name = "";
    return answer;
  }

  /** Forgets the name's token in this browser (the name can then be
   *  taken by nobody but a holder of the token). */
  forget(name) {
    const identity = loadIdentity();
    delete identity.tokens[name];
    if (identity.last === name) identity.last = "";
    saveIdentity(identity);
  }
}

/** The server's WebSocket address, from the page's own. */
export function defaultUrl() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}/ws`;
}
