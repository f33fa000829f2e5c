//! What the server's tests share: a client that reads its connection on a
//! task of its own (so a table can run ahead of it) and keeps every text
//! message it was sent, a server set up for tests, and a plain HTTP GET.

// Each test file uses a part of this module.
#![allow(dead_code)]

use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use table_protocol::{ClientMessage, ServerMessage, VERSION};
use table_server::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
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
