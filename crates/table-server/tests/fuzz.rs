//! Whatever a client sends, the server stays up: random and mutated
//! messages over real sockets to a server where another client plays a
//! game meanwhile. Every answer must be a message of the protocol, or the
//! connection is closed with a close frame that says why; the other game
//! goes on and `/health` answers. And the limits hold: no `hello` in time,
//! silence, a flood.

mod common;

use common::{Client, Got, create, health, legal, parse};
use proptest::prelude::*;
use proptest::test_runner::{Config as Cases, TestCaseError, TestRunner};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use table_protocol::{ClientMessage, ErrorCode, ServerMessage};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};

/// The server's message size limit (the default).
const LIMIT: usize = 16 * 1024;

// ---------------------------------------------------------------------------
// The game that must go on.

fn phase(observation: &Value) -> &str {
    observation["status"]["phase"].as_str().unwrap_or("")
}

/// Plays games of mille against a computer, one after another, counting
/// the moves the server acknowledges.
async fn keep_playing(addr: SocketAddr, acks: Arc<AtomicU64>) {
    let mut c = Client::open(addr).await;
    c.hello("player", None).await;
    let mut id = 0u64;
    loop {
        c.send(&create(
            "mille",
            json!({"rules": "bsd", "players": 2}),
            json!([{"kind": "human"}, {"kind": "computer", "level": "classic"}]),
            Some(0),
        ))
        .await;
        let table = c
            .until(|m| match m {
                ServerMessage::Created { table, .. } => Some(table.id),
                _ => None,
            })
            .await;
        let (mut seq, mut obs) = c
            .until(|m| match m {
                ServerMessage::Joined {
                    seq, observation, ..
                } => Some((*seq, observation.clone())),
                _ => None,
            })
            .await;
        let mut acted = None;
        let mut readied = None;
        while phase(&obs) != "game_over" {
            if phase(&obs) == "hand_over" && readied != Some(seq) {
                readied = Some(seq);
                c.send(&ClientMessage::Ready { table }).await;
            }
            if let Some(action) = legal(&obs).first().cloned()
                && acted != Some(seq)
            {
                acted = Some(seq);
                id += 1;
                c.send(&ClientMessage::Move { table, id, action }).await;
            }
            match c.recv().await {
                ServerMessage::Update {
                    table: t,
                    seq: s,
                    observation,
                    ..
                } if t == table => {
                    seq = s;
                    obs = observation;
                }
                ServerMessage::Ack { .. } => {
                    acks.fetch_add(1, Ordering::SeqCst);
                }
                ServerMessage::Error(e) => panic!("the player was refused: {e:?}"),
                _ => {}
            }
        }
    }
}

/// Waits until the player's game has moved on past `since` acks.
async fn moves_on(acks: &AtomicU64, since: u64, player: &tokio::task::JoinHandle<()>) {
    let start = Instant::now();
    while acks.load(Ordering::SeqCst) <= since {
        assert!(!player.is_finished(), "the player's client stopped");
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the other table stopped playing"
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

// ---------------------------------------------------------------------------
// What a fuzzing client sends.

/// One frame a fuzzing client sends.
#[derive(Clone)]
enum Send {
    /// A text message.
    Text(String),
    /// A binary message.
    Binary(Vec<u8>),
    /// A text frame whose bytes are not UTF-8.
    NotUtf8(Vec<u8>),
}

impl std::fmt::Debug for Send {
    // Long texts are cut, so that a failure can be read.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Send::Text(t) if t.len() > 200 => {
                let mut cut = 120;
                while !t.is_char_boundary(cut) {
                    cut -= 1;
                }
                write!(f, "Text({} bytes: {:?}...)", t.len(), &t[..cut])
            }
            Send::Text(t) => write!(f, "Text({t:?})"),
            Send::Binary(b) => write!(f, "Binary({b:?})"),
            Send::NotUtf8(b) => write!(f, "NotUtf8({b:?})"),
        }
    }
}

/// The valid messages, with numbers that may or may not name something.
fn valid() -> impl Strategy<Value = Value> {
    let table = prop_oneof![0u64..4, Just(u64::MAX)];
    let seat = 0usize..7;
    prop_oneof![
        "[a-z]{1,10}".prop_map(|n| json!({"type": "hello", "version": 1, "name": n})),
        Just(json!({"type": "hello", "version": 1, "token": "00000000000000000000000000000000"})),
        Just(json!({"type": "list"})),
        Just(json!({"type": "ping"})),
        (any::<bool>(), prop::option::of(0usize..3)).prop_map(|(private, sit)| json!({
            "type": "create", "game": "mille", "setup": {"rules": "bsd", "players": 2},
            "seats": [{"kind": "human"}, {"kind": "computer", "level": "classic"}],
            "private": private, "sit": sit})),
        Just(json!({"type": "create", "game": "cubes",
            "seats": [{"kind": "human"}, {"kind": "human"}]})),
        (
            table.clone(),
            prop::option::of(seat),
            prop::option::of(0u64..50)
        )
            .prop_map(
                |(t, s, since)| json!({"type": "join", "table": t, "seat": s, "since": since})
            ),
        (table.clone(), prop::option::of(0u64..50))
            .prop_map(|(t, since)| json!({"type": "watch", "table": t, "since": since})),
        (
            table.clone(),
            any::<u64>(),
            prop_oneof![
                Just(json!("draw")),
                Just(json!("play 200 1")),
                Just(json!("Roll")),
                Just(json!({"Keep": 7})),
            ]
        )
            .prop_map(|(t, id, a)| json!({"type": "move", "table": t, "id": id, "action": a})),
        table
            .clone()
            .prop_map(|t| json!({"type": "ready", "table": t})),
        table.prop_map(|t| json!({"type": "leave", "table": t})),
        Just(json!({"type": "rankings", "game": "cubes", "kind": "Blitz", "min_games": 1})),
    ]
}

/// A value of any kind, the awkward ones often.
fn weird() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(null)),
        Just(json!(true)),
        Just(json!(-1)),
        Just(json!(0)),
        Just(json!(2)),
        Just(json!(i64::MIN)),
        Just(json!(u64::MAX)),
        Just(json!(1e308)),
        Just(json!(0.5)),
        // 2^64 and more: no integer type reads them.
        Just(serde_json::from_str::<Value>("18446744073709551616").expect("json")),
        Just(serde_json::from_str::<Value>("1e400").unwrap_or(json!(null))),
        Just(json!("")),
        Just(json!("\u{0}\u{202e}\u{1F600}é\u{FFFF}")),
        any::<String>().prop_map(Value::from),
        Just(json!([])),
        Just(json!({})),
        Just(json!({"type": "ping"})),
        prop::collection::vec(any::<i64>(), 0..4).prop_map(|v| json!(v)),
    ]
}

/// How a valid message is spoilt.
#[derive(Clone, Debug)]
enum Spoil {
    Keep,
    /// A field left out.
    Drop(usize),
    /// A field given twice (the text has the key twice).
    Twice(usize),
    /// A field given a value of another kind.
    Retype(usize, Value),
    /// A field added.
    Add(String, Value),
    /// A field's value nested this deep in arrays.
    Nest(usize, usize),
    /// A field's value a string of this many characters.
    Long(usize, usize),
    /// The text cut after this many bytes.
    Cut(usize),
    /// The whole message inside a list.
    Wrapped,
}

fn spoil() -> impl Strategy<Value = Spoil> {
    prop_oneof![
        2 => Just(Spoil::Keep),
        1 => (0usize..8).prop_map(Spoil::Drop),
        1 => (0usize..8).prop_map(Spoil::Twice),
        3 => (0usize..8, weird()).prop_map(|(k, v)| Spoil::Retype(k, v)),
        1 => ("[a-z_]{1,8}", weird()).prop_map(|(k, v)| Spoil::Add(k, v)),
        1 => (0usize..8, prop_oneof![1usize..200, 1000usize..6000]).prop_map(|(k, d)| Spoil::Nest(k, d)),
        1 => (0usize..8, prop_oneof![0usize..100, (LIMIT - 200)..(LIMIT + 200), (2 * LIMIT)..(3 * LIMIT)])
            .prop_map(|(k, n)| Spoil::Long(k, n)),
        1 => (0usize..200).prop_map(Spoil::Cut),
        1 => Just(Spoil::Wrapped),
    ]
}

/// The text of `msg` spoilt so.
fn spoilt(msg: &Value, how: &Spoil) -> String {
    let mut msg = msg.clone();
    let keys: Vec<String> = msg
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    let key = |k: usize| keys[k % keys.len()].clone();
    let o = msg.as_object_mut().expect("an object");
    match how {
        Spoil::Keep => {}
        Spoil::Drop(k) => {
            o.remove(&key(*k));
        }
        Spoil::Twice(k) => {
            let k = key(*k);
            let v = o[&k].clone();
            let text = Value::Object(o.clone()).to_string();
            return format!("{{\"{k}\":{v},{}", &text[1..]);
        }
        Spoil::Retype(k, v) => {
            o.insert(key(*k), v.clone());
        }
        Spoil::Add(k, v) => {
            o.insert(k.clone(), v.clone());
        }
        Spoil::Nest(k, depth) => {
            let k = key(*k);
            o.remove(&k);
            let rest = Value::Object(o.clone()).to_string();
            let nested = format!("{}1{}", "[".repeat(*depth), "]".repeat(*depth));
            let sep = if rest == "{}" { "" } else { "," };
            return format!("{{\"{k}\":{nested}{sep}{}", &rest[1..]);
        }
        Spoil::Long(k, n) => {
            o.insert(key(*k), Value::from("é".repeat(n / 2) + &"x".repeat(n % 2)));
        }
        Spoil::Cut(n) => {
            let text = msg.to_string();
            let mut at = (*n).min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            return text[..at].to_string();
        }
        Spoil::Wrapped => return json!([msg]).to_string(),
    }
    msg.to_string()
}

fn frame() -> impl Strategy<Value = Send> {
    prop_oneof![
        8 => (valid(), spoil()).prop_map(|(m, s)| Send::Text(spoilt(&m, &s))),
        1 => any::<String>().prop_map(Send::Text),
        1 => prop::collection::vec(any::<u8>(), 0..64).prop_map(Send::Binary),
        1 => prop::collection::vec(any::<u8>(), 0..16).prop_map(|mut b| {
            // 0xFF is never in UTF-8.
            b.insert(0, 0xff);
            Send::NotUtf8(b)
        }),
        1 => ((LIMIT - 64)..(LIMIT + 64)).prop_map(|n| {
            // A ping padded to about the limit.
            let pad = n.saturating_sub(30);
            Send::Text(format!("{{\"type\":\"ping\",\"x\":\"{}\"}}", "y".repeat(pad)))
        }),
    ]
}

// ---------------------------------------------------------------------------
// A fuzzing client's session.

/// What became of a session.
#[derive(Debug, Default)]
struct Outcome {
    /// Messages received (each a protocol message).
    messages: usize,
    /// The close reason, if the server closed the connection.
    closed: Option<String>,
}

/// Sends `frames`, then makes sure the connection answers still (a fresh
/// `hello` and a `leave` of a table that cannot exist, whose refusal ends
/// the session), reading everything the server sends on the way.
async fn session(addr: SocketAddr, frames: &[Send], mark: u64) -> Result<Outcome, String> {
    let mut c = Client::open(addr).await;
    let mut out = Outcome::default();
    let mut sent_close = false;
    for f in frames {
        let msg = match f {
            Send::Text(t) => Message::Text(t.clone().into()),
            Send::Binary(b) => Message::Binary(b.clone().into()),
            Send::NotUtf8(b) => {
                Message::Frame(Frame::message(b.clone(), OpCode::Data(Data::Text), true))
            }
        };
        if c.send_frame(msg).await.is_err() {
            break;
        }
        // Whatever came already: a close ends the sending.
        while let Some(got) = c.next(Duration::ZERO).await {
            if absorb(got, &mut out)? {
                sent_close = true;
                break;
            }
        }
        if sent_close {
            break;
        }
    }
    if out.closed.is_some() {
        return Ok(out);
    }
    let hello = json!({"type": "hello", "version": 1, "name": format!("mark {mark}")});
    let leave = json!({"type": "leave", "table": mark});
    let _ = c.send_text(&hello.to_string()).await;
    let _ = c.send_text(&leave.to_string()).await;
    loop {
        let Some(got) = c.next(Duration::from_secs(10)).await else {
            return Err("no answer within 10 s".into());
        };
        if let Got::Text(t) = &got
            && let Ok(ServerMessage::Error(e)) = serde_json::from_str(t)
            && e.table == Some(mark)
        {
            assert_eq!(e.code, ErrorCode::NoSuchTable);
            out.messages += 1;
            return Ok(out);
        }
        if absorb(got, &mut out)? {
            return Ok(out);
        }
    }
}

/// Checks what the connection got; answers whether it is closed.
fn absorb(got: Got, out: &mut Outcome) -> Result<bool, String> {
    match got {
        Got::Text(t) => {
            serde_json::from_str::<ServerMessage>(&t)
                .map_err(|e| format!("not a server message ({e}): {t}"))?;
            out.messages += 1;
            Ok(false)
        }
        Got::Binary => Err("a binary message from the server".into()),
        Got::Close(Some((_, reason))) if !reason.is_empty() => {
            out.closed = Some(reason);
            Ok(true)
        }
        other => Err(format!("closed without a reason: {other:?}")),
    }
}

#[test]
fn random_and_spoilt_messages_are_answered_or_closed_and_the_table_plays_on() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let dir = tempfile::tempdir().expect("dir");
    let mut config = common::config(dir.path());
    // The player answers at once; the fuzzing clients send a few frames
    // each, far below any limit.
    config.limits.messages_per_second = 1000;
    config.limits.burst = 1000;
    let server = runtime
        .block_on(table_server::start(config))
        .expect("start");
    let addr = server.addr;
    let acks = Arc::new(AtomicU64::new(0));
    let player = runtime.spawn(keep_playing(addr, Arc::clone(&acks)));
    let mut runner = TestRunner::new(Cases {
        cases: 128,
        failure_persistence: None,
        ..Cases::default()
    });
    // Counted in atomics: the runner takes a `Fn`.
    let closed = AtomicU64::new(0);
    let answered = AtomicU64::new(0);
    let mark = AtomicU64::new(1_000_000_000);
    let strategy = prop::collection::vec(frame(), 1..10);
    runner
        .run(&strategy, |frames| {
            let mark = mark.fetch_add(1, Ordering::SeqCst);
            let done = runtime.block_on(async {
                let before = acks.load(Ordering::SeqCst);
                let out = session(addr, &frames, mark).await?;
                moves_on(&acks, before, &player).await;
                let h = health(addr).await;
                if h["status"] != "ok" {
                    return Err(format!("health: {h}"));
                }
                Ok::<Outcome, String>(out)
            });
            let out = done.map_err(TestCaseError::fail)?;
            if out.closed.is_some() {
                closed.fetch_add(1, Ordering::SeqCst);
            }
            answered.fetch_add(out.messages as u64, Ordering::SeqCst);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    // The cases went both ways: some connections were closed, most were
    // answered.
    let (closed, answered) = (closed.into_inner(), answered.into_inner());
    eprintln!("{closed} connections closed, {answered} answers");
    assert!(closed > 0, "no case closed its connection");
    assert!(answered > 128, "{answered} answers");
    assert!(!player.is_finished(), "the player plays on");
    player.abort();
    runtime.block_on(server.stop());
}

// ---------------------------------------------------------------------------
// The limits.

fn limited_config(dir: &std::path::Path) -> table_server::Config {
    let mut c = common::config(dir);
    c.handshake = Duration::from_millis(300);
    c.limits.idle_seconds = 1;
    c
}

/// Reads until the connection closes; answers the messages and the reason.
async fn until_closed(c: &mut Client, within: Duration) -> (Vec<ServerMessage>, String) {
    let mut messages = Vec::new();
    let start = Instant::now();
    loop {
        let left = within.saturating_sub(start.elapsed());
        match c.next(left).await {
            Some(Got::Text(t)) => messages.push(parse(&t)),
            Some(Got::Close(Some((_, reason)))) => return (messages, reason),
            other => panic!("expected a close frame with a reason, got {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_without_hello_is_closed_after_the_handshake_time() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(limited_config(dir.path()))
        .await
        .expect("start");
    let start = Instant::now();
    let mut c = Client::open(server.addr).await;
    // Something else than hello does not count.
    c.send(&ClientMessage::Ping).await;
    let (messages, reason) = until_closed(&mut c, Duration::from_secs(5)).await;
    let waited = start.elapsed();
    assert!(
        waited >= Duration::from_millis(300),
        "closed after {waited:?}"
    );
    assert!(reason.contains("hello"), "{reason}");
    let codes: Vec<ErrorCode> = messages
        .iter()
        .filter_map(|m| match m {
            ServerMessage::Error(e) => Some(e.code),
            _ => None,
        })
        .collect();
    // The ping is refused, and the close is announced.
    assert_eq!(codes, vec![ErrorCode::Handshake, ErrorCode::Handshake]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_connection_is_closed_and_a_pinging_one_is_not() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(limited_config(dir.path()))
        .await
        .expect("start");
    let mut idle = Client::open(server.addr).await;
    idle.hello("idle", None).await;
    let mut busy = Client::open(server.addr).await;
    busy.hello("busy", None).await;
    let start = Instant::now();
    let mut pongs = 0;
    // The busy one pings every 300 ms (a third of the idle time) for 2 s.
    while start.elapsed() < Duration::from_secs(2) {
        busy.send(&ClientMessage::Ping).await;
        if let Some(Got::Text(t)) = busy.next(Duration::from_millis(300)).await {
            assert_eq!(parse(&t), ServerMessage::Pong);
            pongs += 1;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    assert!(pongs >= 3, "{pongs} pongs");
    let (messages, reason) = until_closed(&mut idle, Duration::from_secs(1)).await;
    assert!(messages.is_empty(), "{messages:?}");
    assert!(reason.contains("idle"), "{reason}");
    busy.send(&ClientMessage::Ping).await;
    assert_eq!(busy.recv().await, ServerMessage::Pong);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_is_refused_then_closed() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(common::config(dir.path()))
        .await
        .expect("start");
    let limits = table_server::Config::new(dir.path().into()).limits;
    let mut c = Client::open(server.addr).await;
    c.hello("flood", None).await;
    let flood = 4 * limits.burst as usize;
    for _ in 0..flood {
        // The server may close before the last ones are sent.
        let _ = c.send_text(&ClientMessage::Ping.to_json()).await;
    }
    let (messages, reason) = until_closed(&mut c, Duration::from_secs(10)).await;
    let pongs = messages
        .iter()
        .filter(|m| **m == ServerMessage::Pong)
        .count();
    let limited = messages
        .iter()
        .filter(|m| matches!(m, ServerMessage::Error(e) if e.code == ErrorCode::RateLimited))
        .count();
    // The hello took one of the burst.
    assert!(pongs + 1 >= limits.burst as usize, "{pongs} pongs");
    assert!(pongs < flood / 2, "{pongs} pongs: the rate is not limited");
    assert!(limited > 0, "no rate_limited refusal");
    assert!(reason.contains("many"), "{reason}");
    // Others are still served.
    let mut other = Client::open(server.addr).await;
    other.hello("calm", None).await;
    assert_eq!(health(server.addr).await["status"], "ok");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_over_the_limit_is_refused_and_closed() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(common::config(dir.path()))
        .await
        .expect("start");
    for size in [LIMIT + 1, 3 * LIMIT] {
        let mut c = Client::open(server.addr).await;
        c.hello(&format!("big {size}"), None).await;
        let text = format!("{{\"type\":\"ping\",\"x\":\"{}\"}}", "y".repeat(size));
        let _ = c.send_text(&text).await;
        let (messages, reason) = until_closed(&mut c, Duration::from_secs(5)).await;
        assert!(
            matches!(&messages[..], [ServerMessage::Error(e)] if e.code == ErrorCode::TooLarge),
            "{size} bytes: {messages:?}"
        );
        assert!(reason.contains("bytes"), "{reason}");
    }
    // A message far larger than the socket's buffers: the server stops
    // reading it and closes, so the client may see its connection reset
    // before it reads the close frame. The server is none the worse.
    let mut c = Client::open(server.addr).await;
    c.hello("huge", None).await;
    let _ = c
        .send_text(&format!("\"{}\"", "z".repeat(100 * LIMIT)))
        .await;
    let end = c.next(Duration::from_secs(5)).await;
    assert!(
        matches!(end, Some(Got::Text(_) | Got::Close(_) | Got::Failed(_))),
        "{end:?}"
    );
    let mut after = Client::open(server.addr).await;
    after.hello("after", None).await;
    assert_eq!(health(server.addr).await["status"], "ok");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_frame_that_is_not_utf8_closes_with_1007_and_other_refusals_with_1008() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(limited_config(dir.path()))
        .await
        .expect("start");
    let mut c = Client::open(server.addr).await;
    c.hello("bytes", None).await;
    let bad = vec![0x7b, 0xff, 0xfe, 0x7d];
    c.send_frame(Message::Frame(Frame::message(
        bad,
        OpCode::Data(Data::Text),
        true,
    )))
    .await
    .expect("sent");
    let code = loop {
        match c.next(Duration::from_secs(5)).await {
            Some(Got::Text(_)) => {}
            Some(Got::Close(Some((code, reason)))) => {
                assert!(reason.contains("UTF-8"), "{reason}");
                break code;
            }
            other => panic!("expected a close frame, got {other:?}"),
        }
    };
    assert_eq!(code, 1007, "invalid frame payload data");
    // Silence before hello is a policy matter.
    let mut quiet = Client::open(server.addr).await;
    let code = loop {
        match quiet.next(Duration::from_secs(5)).await {
            Some(Got::Text(_)) => {}
            Some(Got::Close(Some((code, _)))) => break code,
            other => panic!("expected a close frame, got {other:?}"),
        }
    };
    assert_eq!(code, 1008);
    server.stop().await;
}
