//! What the server's tests share: a client that reads its connection on a
//! task of its own (so a table can run ahead of it) and keeps every text
//! message it was sent, a server set up for tests, a scripted player over
//! a bare WebSocket, and a plain HTTP GET.

// Each test file uses a part of this module.
#![allow(dead_code)]

use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use table_protocol::{ClientMessage, ServerMessage, VERSION};
use table_server::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// A client's WebSocket.
pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// What a connection received.
#[derive(Clone, Debug, PartialEq)]
pub enum Got {
    /// A text message.
    Text(String),
    /// A binary message (the server never sends one).
    Binary,
    /// A close frame: its code and reason, if it had one.
    Close(Option<(u16, String)>),
    /// The stream ended without a close frame.
    Ended,
    /// The WebSocket failed.
    Failed(String),
}

/// A test client: its messages are read as they come and kept in `log`.
pub struct Client {
    sink: SplitSink<Ws, Message>,
    rx: mpsc::UnboundedReceiver<Got>,
    log: Arc<Mutex<Vec<String>>>,
    reader: tokio::task::JoinHandle<()>,
}

impl Drop for Client {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl Client {
    /// Connects to `ws://addr/ws`.
    pub async fn open(addr: SocketAddr) -> Client {
        let url = format!("ws://{addr}/ws");
        let (ws, _) = tokio_tungstenite::connect_async(url)
            .await
            .expect("connect");
        Client::over(ws)
    }

    /// Reads `ws` on a task of its own.
    pub fn over(ws: Ws) -> Client {
        let (sink, mut stream) = ws.split();
        let (tx, rx) = mpsc::unbounded_channel();
        let log = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&log);
        let reader = tokio::spawn(async move {
            loop {
                let got = match stream.next().await {
                    Some(Ok(Message::Text(t))) => {
                        let t = t.as_str().to_string();
                        if std::env::var("TEST_DEBUG").is_ok() {
                            eprintln!("<< {}", &t[..t.len().min(300)]);
                        }
                        kept.lock().expect("log").push(t.clone());
                        Got::Text(t)
                    }
                    Some(Ok(Message::Binary(_))) => Got::Binary,
                    Some(Ok(Message::Close(frame))) => Got::Close(
                        frame.map(|f| (u16::from(f.code), f.reason.as_str().to_string())),
                    ),
                    Some(Ok(_)) => continue,
                    Some(Err(e)) => Got::Failed(e.to_string()),
                    None => Got::Ended,
                };
                let last = !matches!(got, Got::Text(_) | Got::Binary);
                if tx.send(got).is_err() || last {
                    break;
                }
            }
        });
        Client {
            sink,
            rx,
            log,
            reader,
        }
    }

    /// Sends a protocol message.
    pub async fn send(&mut self, msg: &ClientMessage) {
        self.send_text(&msg.to_json()).await.expect("send");
    }

    /// Sends any text.
    pub async fn send_text(&mut self, text: &str) -> Result<(), String> {
        self.send_frame(Message::Text(text.to_string().into()))
            .await
    }

    /// Sends any frame.
    pub async fn send_frame(&mut self, msg: Message) -> Result<(), String> {
        self.sink.send(msg).await.map_err(|e| e.to_string())
    }

    /// The next thing the connection got, if any within `within`.
    pub async fn next(&mut self, within: Duration) -> Option<Got> {
        match tokio::time::timeout(within, self.rx.recv()).await {
            Ok(Some(got)) => Some(got),
            Ok(None) => Some(Got::Ended),
            Err(_) => None,
        }
    }

    /// The next message, which must come within 20 s and parse.
    pub async fn recv(&mut self) -> ServerMessage {
        match self.next(Duration::from_secs(20)).await {
            Some(Got::Text(t)) => parse(&t),
            other => panic!("expected a message, got {other:?}"),
        }
    }

    /// Waits for a message `pick` accepts, skipping others.
    pub async fn until<T>(&mut self, mut pick: impl FnMut(&ServerMessage) -> Option<T>) -> T {
        loop {
            let m = self.recv().await;
            if let Some(t) = pick(&m) {
                return t;
            }
        }
    }

    /// Says hello; answers the token.
    pub async fn hello(&mut self, name: &str, token: Option<String>) -> String {
        self.send(&ClientMessage::Hello {
            version: VERSION,
            name: Some(name.into()),
            token,
            client: Some("safety test".into()),
            bot: None,
        })
        .await;
        match self.recv().await {
            ServerMessage::Welcome { token, .. } => token,
            other => panic!("expected welcome, got {other:?}"),
        }
    }

    /// Sends `create` and answers the new table's number.
    pub async fn open_table(&mut self, create: ClientMessage) -> u64 {
        self.send(&create).await;
        self.until(|m| match m {
            ServerMessage::Created { table, .. } => Some(table.id),
            _ => None,
        })
        .await
    }

    /// Every text message received so far.
    pub fn log(&self) -> Vec<String> {
        self.log.lock().expect("log").clone()
    }
}

/// Reads a server message as a strict client does (unknown fields
/// refused), or panics with the text.
pub fn parse(text: &str) -> ServerMessage {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not a server message ({e}): {text}"))
}

/// A server for tests: loopback on a free port, no pause before computer
/// moves, a short pause between hands.
pub fn config(dir: &std::path::Path) -> Config {
    let mut c = Config::new(dir.to_path_buf());
    c.listen = "127.0.0.1:0".parse().expect("addr");
    c.bot_delay = Duration::ZERO;
    // No pause after hazards (the test of the pause sets its own).
    c.coup_fourre_window = Duration::ZERO;
    c.hand_pause = Duration::from_millis(300);
    // Tests register many names from one address; the cap has a test of
    // its own.
    c.registrations_per_hour = 10_000;
    c
}

/// [`config`] for players that play as fast as the table answers (no
/// rate limit in their way), with `decision_limit`.
pub fn fast_config(dir: &std::path::Path, decision_limit: Duration) -> Config {
    let mut c = config(dir);
    c.limits.messages_per_second = 1000;
    c.limits.burst = 2000;
    c.decision_limit = decision_limit;
    c
}

/// How a [`scripted`] player acts.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Manner {
    /// Plays its first legal action, says ready between hands.
    Plays,
    /// Closes its connection when it is first to act.
    Leaves,
    /// Sends a move that is not among its legal ones at its first
    /// decision, then plays as `Plays` does.
    Illegal,
    /// Plays its first table as `Plays` does, and makes no move at any
    /// other.
    FirstOnly,
}

/// A [`scripted`] player: who it is and what it does besides playing.
pub struct Scripted {
    /// Its name.
    pub name: &'static str,
    /// Its hello's bot info: a bot, which accepts every invitation.
    pub bot: Option<Value>,
    /// How it acts.
    pub manner: Manner,
    /// Its token, given back at hello and kept from `welcome` (a player
    /// that comes again), if it keeps one.
    pub token: Option<Arc<Mutex<Option<String>>>>,
    /// A `create` sent after its welcome, and where the new table's
    /// number is told on `created`.
    pub create: Option<(Value, oneshot::Sender<u64>)>,
}

impl Scripted {
    /// A player `name` acting as `manner`, nothing else.
    pub fn new(name: &'static str, manner: Manner) -> Scripted {
        Scripted {
            name,
            bot: None,
            manner,
            token: None,
            create: None,
        }
    }
}

/// What a scripted player sends at `table` on `obs`: `ready` between
/// hands, else its move (the first legal one, or one that is not legal
/// while `cheat` holds, which it then clears), else nothing.
fn scripted_act(table: u64, obs: &Value, id: &mut u64, cheat: &mut bool) -> Option<Value> {
    if obs["status"]["phase"] == "hand_over" {
        return Some(json!({"type": "ready", "table": table}));
    }
    let legal = legal(obs);
    let first = legal.first()?.clone();
    let action = if std::mem::take(cheat) {
        // A move that reads but is not among the legal ones.
        ["discard 25", "discard 200", "draw"]
            .into_iter()
            .map(Value::from)
            .find(|a| !legal.contains(a))
            .unwrap_or(first)
    } else {
        first
    };
    *id += 1;
    Some(json!({"type": "move", "table": table, "id": *id, "action": action}))
}

/// A player over a bare WebSocket, playing every seat it is given as its
/// manner says, until the connection closes or the task is dropped. An
/// observation older than its last move at a table is not acted on again;
/// a move refused for the moment (a table still waiting for its other
/// seat) is tried again on what was seen last.
pub fn scripted(addr: SocketAddr, player: Scripted) -> tokio::task::JoinHandle<()> {
    let Scripted {
        name,
        bot,
        manner,
        token,
        create,
    } = player;
    tokio::spawn(async move {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
            .await
            .expect("connect");
        let (mut tx, mut rx) = ws.split();
        let mut hello = json!({"type": "hello", "version": VERSION, "name": name,
            "client": "scripted test player"});
        if let Some(info) = bot {
            hello["bot"] = info;
        }
        if let Some(known) = token
            .as_ref()
            .and_then(|t| t.lock().expect("token").clone())
        {
            hello["token"] = Value::from(known);
        }
        tx.send(Message::Text(hello.to_string().into()))
            .await
            .expect("hello");
        let (mut create, mut created) = match create {
            Some((c, t)) => (Some(c), Some(t)),
            None => (None, None),
        };
        let mut id = 0u64;
        let mut cheat = manner == Manner::Illegal;
        // The sequence number each table was last acted at, and its
        // latest observation.
        let mut moved: BTreeMap<u64, u64> = BTreeMap::new();
        let mut latest: BTreeMap<u64, Value> = BTreeMap::new();
        let plays_at = |moved: &BTreeMap<u64, u64>, table: u64| {
            manner != Manner::FirstOnly || moved.keys().next().is_none_or(|first| *first == table)
        };
        while let Some(Ok(frame)) = rx.next().await {
            let Message::Text(text) = frame else { continue };
            let Ok(msg) = serde_json::from_str::<Value>(text.as_str()) else {
                continue;
            };
            let table = msg["table"].as_u64();
            let reply = match (msg["type"].as_str(), table) {
                (Some("welcome"), _) => {
                    if let Some(t) = &token {
                        *t.lock().expect("token") = msg["token"].as_str().map(String::from);
                    }
                    create.take()
                }
                (Some("created"), _) => {
                    if let (Some(t), Some(table)) = (created.take(), msg["table"]["id"].as_u64()) {
                        let _ = t.send(table);
                    }
                    None
                }
                (Some("invited"), _) => {
                    Some(json!({"type": "accept", "table": msg["table"]["id"]}))
                }
                (Some("joined" | "update"), Some(table)) => {
                    let seq = msg["seq"].as_u64().unwrap_or(0);
                    let obs = &msg["observation"];
                    latest.insert(table, obs.clone());
                    if manner == Manner::Leaves && !legal(obs).is_empty() {
                        let _ = tx.send(Message::Close(None)).await;
                        return;
                    }
                    if plays_at(&moved, table) && moved.get(&table).is_none_or(|m| seq > *m) {
                        let reply = scripted_act(table, obs, &mut id, &mut cheat);
                        if reply.is_some() {
                            moved.insert(table, seq);
                        }
                        reply
                    } else {
                        None
                    }
                }
                (Some("error"), table) => {
                    eprintln!("{name} was refused: {msg}");
                    match table {
                        Some(table) if msg["code"] != "game_over" && plays_at(&moved, table) => {
                            tokio::time::sleep(Duration::from_millis(100)).await;
                            latest
                                .get(&table)
                                .and_then(|obs| scripted_act(table, obs, &mut id, &mut cheat))
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some(r) = reply
                && tx.send(Message::Text(r.to_string().into())).await.is_err()
            {
                return;
            }
        }
    })
}

/// A `create` message.
pub fn create(game: &str, setup: Value, seats: Value, sit: Option<usize>) -> ClientMessage {
    ClientMessage::parse(
        &json!({"type": "create", "game": game, "setup": setup, "seats": seats, "sit": sit})
            .to_string(),
    )
    .expect("create")
}

/// An observation's legal actions.
pub fn legal(observation: &Value) -> Vec<Value> {
    observation["legal"].as_array().cloned().unwrap_or_default()
}

/// `GET path` over a new TCP connection: the status code and the body.
pub async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut tcp = TcpStream::connect(addr).await.expect("connect");
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    tcp.write_all(request.as_bytes()).await.expect("write");
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), tcp.read_to_end(&mut answer))
        .await
        .expect("an answer within 10 s")
        .expect("read");
    let text = String::from_utf8_lossy(&answer).to_string();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// `/health` as JSON (its body may come chunked: the JSON object is cut
/// out of it).
pub async fn health(addr: SocketAddr) -> Value {
    let (status, body) = get(addr, "/health").await;
    assert_eq!(status, 200, "/health answers: {body}");
    let start = body.find('{').expect("a JSON object");
    let end = body.rfind('}').expect("a JSON object");
    serde_json::from_str(&body[start..=end]).expect("JSON")
}

/// A small deterministic generator (xorshift) for the clients' choices.
pub struct Dice(u64);

impl Dice {
    /// Seeded with `seed` (not 0).
    pub fn new(seed: u64) -> Dice {
        Dice(seed.max(1))
    }

    /// The next number.
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `p` percent.
    pub fn chance(&mut self, p: u64) -> bool {
        self.next() % 100 < p
    }
}
