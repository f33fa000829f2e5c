//! The session against a scripted server on the loopback: the reconnection
//! sends the token, takes the seat back since the last seq and resends the
//! unanswered move with its id; refusals end the session; a server that
//! cannot be reached at the start ends it, once connected it is retried.

use crate::{Credentials, Link, Note, Session, Target, TokenStore};
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use std::time::Duration;
use table_protocol::{ClientMessage, ErrorBody, ErrorCode, Limits, ServerMessage};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

const WAIT: Duration = Duration::from_secs(10);

type Peer = WebSocketStream<TcpStream>;

/// Runs `script` as the server on a fresh loopback port, in its own thread.
fn serve<F, Fut>(script: F) -> (Target, std::thread::JoinHandle<()>)
where
    F: FnOnce(TcpListener) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()>,
{
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    listener.set_nonblocking(true).expect("nonblocking");
    let thread = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let listener = TcpListener::from_std(listener).expect("listener");
            tokio::time::timeout(WAIT * 3, script(listener))
                .await
                .expect("the script finished in time");
        });
    });
    let target = Target::Tcp {
        host: "127.0.0.1".into(),
        port,
    };
    (target, thread)
}

async fn accept(listener: &TcpListener) -> Peer {
    let (stream, _) = listener.accept().await.expect("accept");
    tokio_tungstenite::accept_async(stream)
        .await
        .expect("websocket")
}

async fn hear(peer: &mut Peer) -> ClientMessage {
    loop {
        match peer.next().await.expect("a message").expect("a frame") {
            Message::Text(text) => {
                return ClientMessage::parse(text.as_str()).expect("a protocol message");
            }
            Message::Close(_) => panic!("the client closed the connection"),
            _ => {}
        }
    }
}

async fn say<S>(peer: &mut WebSocketStream<S>, message: ServerMessage)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    peer.send(Message::text(message.to_json()))
        .await
        .expect("send");
}

fn welcome(name: &str, token: &str, idle_seconds: u64) -> ServerMessage {
    ServerMessage::Welcome {
        version: 1,
        server: "fake".into(),
        name: name.into(),
        token: token.into(),
        limits: Limits {
            max_message_bytes: 65536,
            messages_per_second: 20,
            burst: 40,
            idle_seconds,
            away_seconds: 60,
            decision_seconds: 10,
        },
        seats: vec![],
        games: vec![],
        bot: false,
    }
}

fn hello_of(message: ClientMessage) -> (Option<String>, Option<String>) {
    match message {
        ClientMessage::Hello {
            version: 1,
            name,
            token,
            ..
        } => (name, token),
        other => panic!("expected hello, got {other:?}"),
    }
}

fn refusal(code: ErrorCode, message: &str) -> ServerMessage {
    ServerMessage::Error(ErrorBody {
        code,
        message: message.into(),
        id: None,
        table: None,
    })
}

fn note(session: &Session) -> Note {
    session.recv_timeout(WAIT).expect("a note in time")
}

fn message(session: &Session) -> ServerMessage {
    match note(session) {
        Note::Message(m) => m,
        other => panic!("expected a message, got {other:?}"),
    }
}

fn update(seq: u64) -> ServerMessage {
    ServerMessage::Update {
        table: 3,
        seq,
        observation: Value::Null,
        seats: vec![],
    }
}

#[test]
fn a_dropped_connection_is_resumed_where_it_was() {
    let (target, server) = serve(|listener| async move {
        let mut first = accept(&listener).await;
        assert_eq!(hello_of(hear(&mut first).await), (Some("ann".into()), None));
        say(&mut first, welcome("ann", "t1", 60)).await;
        assert!(matches!(
            hear(&mut first).await,
            ClientMessage::Join { table: 3, .. }
        ));
        say(
            &mut first,
            ServerMessage::Joined {
                table: 3,
                seat: 1,
                seq: 5,
                observation: Value::Null,
            },
        )
        .await;
        say(&mut first, update(6)).await;
        let ClientMessage::Move {
            table: 3,
            id,
            action,
        } = hear(&mut first).await
        else {
            panic!("expected the move");
        };
        assert_eq!(action, Value::from("draw"));
        // The connection breaks before the move is answered.
        drop(first);

        let mut second = accept(&listener).await;
        assert_eq!(
            hello_of(hear(&mut second).await),
            (Some("ann".into()), Some("t1".into()))
        );
        say(&mut second, welcome("ann", "t1", 3)).await;
        assert_eq!(
            hear(&mut second).await,
            ClientMessage::Join {
                table: 3,
                seat: Some(1),
                code: None,
                since: Some(6),
            }
        );
        say(
            &mut second,
            ServerMessage::Joined {
                table: 3,
                seat: 1,
                seq: 6,
                observation: Value::Null,
            },
        )
        .await;
        assert_eq!(
            hear(&mut second).await,
            ClientMessage::Move {
                table: 3,
                id,
                action: Value::from("draw"),
            }
        );
        say(
            &mut second,
            ServerMessage::Ack {
                table: 3,
                id,
                seq: 7,
            },
        )
        .await;
        // Asked for while the connection was down: sent after the resumption.
        assert_eq!(hear(&mut second).await, ClientMessage::List);
        say(&mut second, ServerMessage::Tables { tables: vec![] }).await;
        // Idle 3 s: the session pings within about a second.
        assert_eq!(hear(&mut second).await, ClientMessage::Ping);
        say(&mut second, ServerMessage::Pong).await;
        say(&mut second, update(7)).await;
        // Wait for the client to go.
        while let Some(Ok(frame)) = second.next().await {
            if frame.is_close() {
                break;
            }
        }
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let tokens = TokenStore::in_dir(dir.path());
    let session = Session::start(target.clone(), Some("ann".into()), tokens.clone());
    assert_eq!(note(&session), Note::Connection(Link::Connected));
    assert!(matches!(message(&session), ServerMessage::Welcome { token, .. } if token == "t1"));
    assert_eq!(
        tokens.get(&target).expect("tokens"),
        Some(Credentials {
            name: "ann".into(),
            token: "t1".into()
        })
    );
    session.send(ClientMessage::Join {
        table: 3,
        seat: None,
        code: None,
        since: None,
    });
    assert!(matches!(
        message(&session),
        ServerMessage::Joined { seq: 5, .. }
    ));
    assert_eq!(message(&session), update(6));
    let id = session.play(3, Value::from("draw"));
    assert!(matches!(
        note(&session),
        Note::Connection(Link::Reconnecting { attempt: 1, .. })
    ));
    session.send(ClientMessage::List);
    assert_eq!(note(&session), Note::Connection(Link::Connected));
    assert!(matches!(message(&session), ServerMessage::Welcome { .. }));
    assert!(matches!(
        message(&session),
        ServerMessage::Joined { seq: 6, .. }
    ));
    assert_eq!(
        message(&session),
        ServerMessage::Ack {
            table: 3,
            id,
            seq: 7
        }
    );
    assert_eq!(message(&session), ServerMessage::Tables { tables: vec![] });
    // The pong answering the session's own ping is not passed on.
    assert_eq!(message(&session), update(7));
    assert_eq!(session.play(3, Value::from("x")), id + 1);
    drop(session);
    server.join().expect("the server's script held");
}

#[test]
fn a_taken_name_ends_the_session() {
    let (target, server) = serve(|listener| async move {
        let mut peer = accept(&listener).await;
        hear(&mut peer).await;
        say(
            &mut peer,
            refusal(
                ErrorCode::NameTaken,
                "the name ann belongs to another player",
            ),
        )
        .await;
        let _ = peer.next().await;
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let session = Session::start(target, Some("ann".into()), TokenStore::in_dir(dir.path()));
    match note(&session) {
        Note::Connection(Link::Failed(why)) => {
            assert!(
                why.contains("the name \"ann\" is taken at 127.0.0.1:"),
                "{why}"
            );
            // Said once.
            assert_eq!(why.matches("taken").count(), 1, "{why}");
        }
        other => panic!("expected the end, got {other:?}"),
    }
    assert_eq!(
        session.failure(),
        Some(crate::Failure::NameTaken { name: "ann".into() })
    );
    assert_eq!(session.recv_timeout(Duration::from_millis(300)), None);
    assert!(session.is_ended());
    drop(session);
    server.join().expect("the server's script held");
}

#[test]
fn a_forgotten_token_is_dropped_and_the_name_asked_for_afresh() {
    let (target, server) = serve(|listener| async move {
        let mut peer = accept(&listener).await;
        assert_eq!(
            hello_of(hear(&mut peer).await),
            (Some("ann".into()), Some("old".into()))
        );
        say(&mut peer, refusal(ErrorCode::BadToken, "unknown token")).await;
        assert_eq!(hello_of(hear(&mut peer).await), (Some("ann".into()), None));
        say(&mut peer, welcome("ann", "new", 60)).await;
        let _ = peer.next().await;
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let tokens = TokenStore::in_dir(dir.path());
    let old = Credentials {
        name: "ann".into(),
        token: "old".into(),
    };
    tokens.set(&target, old).expect("save");
    let session = Session::start(target.clone(), None, tokens.clone());
    assert_eq!(note(&session), Note::Connection(Link::Connected));
    assert!(matches!(message(&session), ServerMessage::Welcome { .. }));
    assert_eq!(
        tokens.get(&target).expect("tokens").map(|c| c.token),
        Some("new".into())
    );
    drop(session);
    server.join().expect("the server's script held");
}

#[test]
fn a_server_unreachable_from_the_start_ends_the_session_at_once() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let target = Target::Tcp {
        host: "127.0.0.1".into(),
        port,
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let session = Session::start(target, Some("ann".into()), TokenStore::in_dir(dir.path()));
    session.send(ClientMessage::List);
    match note(&session) {
        Note::Connection(Link::Failed(why)) => {
            assert!(
                why.contains("cannot reach the table server at 127.0.0.1:"),
                "{why}"
            );
        }
        other => panic!("expected the end, got {other:?}"),
    }
    assert!(matches!(
        session.failure(),
        Some(crate::Failure::Unreachable { reason }) if reason.contains("refused")
    ));
    assert_eq!(session.recv_timeout(Duration::from_millis(300)), None);
    assert!(session.is_ended());
}

#[test]
fn damaged_tokens_end_the_session_before_connecting() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tokens = TokenStore::in_dir(dir.path());
    std::fs::write(tokens.path(), "not json").expect("write");
    let target = Target::Tcp {
        host: "127.0.0.1".into(),
        port: 9,
    };
    let session = Session::start(target, Some("ann".into()), tokens);
    match note(&session) {
        Note::Connection(Link::Failed(why)) => assert!(why.contains("damaged"), "{why}"),
        other => panic!("expected the end, got {other:?}"),
    }
}

#[cfg(unix)]
#[test]
fn a_unix_socket_carries_messages_and_the_close_reason() {
    use crate::{ClientError, Connection};
    use tokio_tungstenite::tungstenite::protocol::CloseFrame;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("server.sock");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let listener = tokio::net::UnixListener::bind(&path).expect("bind");
        let server = tokio::spawn(async move {
            let (stream, _) = listener.accept().await.expect("accept");
            let mut peer = tokio_tungstenite::accept_async(stream)
                .await
                .expect("websocket");
            let Some(Ok(Message::Text(hello))) = peer.next().await else {
                panic!("expected hello");
            };
            let hello = ClientMessage::parse(hello.as_str()).expect("hello");
            assert_eq!(hello_of(hello), (Some("ann".into()), None));
            say(&mut peer, welcome("ann", "t", 60)).await;
            let Some(Ok(Message::Text(raw))) = peer.next().await else {
                panic!("expected the raw text");
            };
            assert_eq!(raw.as_str(), "not json");
            peer.send(Message::Ping(vec![1].into()))
                .await
                .expect("ping");
            peer.send(Message::text("{\"type\":\"nonsense\"}"))
                .await
                .expect("send");
            peer.send(Message::text("{\"type\":\"pong\"}"))
                .await
                .expect("send");
            peer.close(Some(CloseFrame {
                code: CloseCode::Policy,
                reason: "too many messages".into(),
            }))
            .await
            .expect("close");
            // As a WebSocket server does: wait for the client's close.
            while let Some(Ok(_)) = peer.next().await {}
        });
        let target = Target::parse(&path.display().to_string()).expect("a path");
        let mut conn = Connection::open(&target).await.expect("open");
        let welcome = conn.hello(Some("ann"), None).await.expect("welcome");
        assert_eq!(
            (welcome.name.as_str(), welcome.token.as_str()),
            ("ann", "t")
        );
        conn.send_raw("not json").await.expect("raw");
        match conn.recv().await {
            Err(ClientError::BadMessage { reason }) => {
                assert!(reason.contains("nonsense"), "{reason}")
            }
            other => panic!("expected an unreadable message, got {other:?}"),
        }
        assert_eq!(conn.recv().await.expect("pong"), ServerMessage::Pong);
        match conn.recv().await {
            Err(e @ ClientError::Closed { .. }) => {
                assert!(e.to_string().contains("too many messages"), "{e}");
            }
            other => panic!("expected the close, got {other:?}"),
        }
        server.await.expect("the server's script held");
    });
}

#[test]
fn nothing_at_a_socket_path_is_unreachable() {
    let dir = tempfile::tempdir().expect("temp dir");
    let target = Target::Unix(dir.path().join("none.sock"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let e = runtime
        .block_on(crate::Connection::open(&target))
        .expect_err("nothing there");
    let sentence = e.to_string();
    assert!(
        sentence.starts_with("cannot reach the table server at /"),
        "{sentence}"
    );
    assert!(sentence.contains("none.sock"), "{sentence}");
}

#[test]
fn another_name_is_saved_beside_the_first_which_comes_back_with_its_token() {
    let (target, server) = serve(|listener| async move {
        let mut first = accept(&listener).await;
        assert_eq!(hello_of(hear(&mut first).await), (Some("bob".into()), None));
        say(&mut first, welcome("bob", "t2", 60)).await;
        let _ = first.next().await;
        let mut second = accept(&listener).await;
        assert_eq!(
            hello_of(hear(&mut second).await),
            (Some("ann".into()), Some("t1".into()))
        );
        say(&mut second, welcome("ann", "t1", 60)).await;
        let _ = second.next().await;
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let tokens = TokenStore::in_dir(dir.path());
    let ann = Credentials {
        name: "ann".into(),
        token: "t1".into(),
    };
    tokens.set(&target, ann.clone()).expect("save");
    let session = Session::start(target.clone(), Some("bob".into()), tokens.clone());
    assert_eq!(note(&session), Note::Connection(Link::Connected));
    assert!(matches!(message(&session), ServerMessage::Welcome { .. }));
    drop(session);
    // Bob is now the default there; ann's token is still kept.
    assert_eq!(
        tokens.get(&target).expect("tokens").map(|c| c.name),
        Some("bob".into())
    );
    assert_eq!(tokens.named(&target, "ann").expect("tokens"), Some(ann));
    let session = Session::start(target.clone(), Some("ann".into()), tokens.clone());
    assert_eq!(note(&session), Note::Connection(Link::Connected));
    assert!(matches!(message(&session), ServerMessage::Welcome { .. }));
    drop(session);
    server.join().expect("the server's script held");
}

#[test]
fn a_name_taken_here_says_where_its_token_is_saved() {
    let (target, server) = serve(|listener| async move {
        let mut peer = accept(&listener).await;
        assert_eq!(hello_of(hear(&mut peer).await), (Some("ann".into()), None));
        say(
            &mut peer,
            refusal(
                ErrorCode::NameTaken,
                "the name ann belongs to another player",
            ),
        )
        .await;
        let _ = peer.next().await;
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let tokens = TokenStore::in_dir(dir.path());
    let socket = Target::Unix("/run/games/server.sock".into());
    let ann = Credentials {
        name: "ann".into(),
        token: "t1".into(),
    };
    tokens.set(&socket, ann).expect("save");
    let session = Session::start(target, Some("ann".into()), tokens);
    match note(&session) {
        Note::Connection(Link::Failed(why)) => {
            assert!(why.contains("is taken"), "{why}");
            assert!(
                why.contains("unless /run/games/server.sock is this same server"),
                "{why}"
            );
        }
        other => panic!("expected the end, got {other:?}"),
    }
    drop(session);
    server.join().expect("the server's script held");
}

#[test]
fn a_name_taken_with_no_token_elsewhere_says_one_may_be_under_another_address() {
    let (target, server) = serve(|listener| async move {
        let mut peer = accept(&listener).await;
        hear(&mut peer).await;
        say(&mut peer, refusal(ErrorCode::NameTaken, "taken")).await;
        let _ = peer.next().await;
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let session = Session::start(target, Some("ann".into()), TokenStore::in_dir(dir.path()));
    match note(&session) {
        Note::Connection(Link::Failed(why)) => {
            assert!(why.contains("is taken at"), "{why}");
            assert!(why.contains("another player has it"), "{why}");
            assert!(why.contains("no token for"), "{why}");
        }
        other => panic!("expected the end, got {other:?}"),
    }
    drop(session);
    server.join().expect("the server's script held");
}

#[test]
fn only_a_token_the_server_does_not_know_is_dropped() {
    let (target, server) = serve(|listener| async move {
        let mut peer = accept(&listener).await;
        assert_eq!(
            hello_of(hear(&mut peer).await),
            (Some("ann".into()), Some("old".into()))
        );
        say(&mut peer, refusal(ErrorCode::BadToken, "unknown token")).await;
        assert_eq!(hello_of(hear(&mut peer).await), (Some("ann".into()), None));
        say(&mut peer, refusal(ErrorCode::NameTaken, "taken")).await;
        let _ = peer.next().await;
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let tokens = TokenStore::in_dir(dir.path());
    for (name, token) in [("bob", "b"), ("ann", "old")] {
        let c = Credentials {
            name: name.into(),
            token: token.into(),
        };
        tokens.set(&target, c).expect("save");
    }
    let session = Session::start(target.clone(), None, tokens.clone());
    assert!(matches!(note(&session), Note::Connection(Link::Failed(_))));
    drop(session);
    assert_eq!(tokens.named(&target, "ann").expect("tokens"), None);
    assert_eq!(
        tokens.get(&target).expect("tokens").map(|c| c.token),
        Some("b".into())
    );
    server.join().expect("the server's script held");
}

#[test]
fn a_token_kept_for_127_0_0_1_is_sent_to_localhost_on_the_same_port() {
    let (target, server) = serve(|listener| async move {
        let mut peer = accept(&listener).await;
        assert_eq!(
            hello_of(hear(&mut peer).await),
            (Some("ann".into()), Some("t1".into()))
        );
        say(&mut peer, welcome("ann", "t1", 60)).await;
        let _ = peer.next().await;
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let tokens = TokenStore::in_dir(dir.path());
    let ann = Credentials {
        name: "ann".into(),
        token: "t1".into(),
    };
    tokens.set(&target, ann).expect("save");
    let Target::Tcp { port, .. } = target else {
        panic!("a TCP target")
    };
    let localhost = Target::parse(&format!("localhost:{port}")).expect("localhost");
    let session = Session::start(localhost, Some("ann".into()), tokens);
    assert_eq!(note(&session), Note::Connection(Link::Connected));
    drop(session);
    server.join().expect("the server's script held");
}

/// Every string in a message, keys included.
fn strings(message: &ServerMessage) -> Vec<String> {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
            Value::Object(map) => {
                for (k, v) in map {
                    out.push(k.clone());
                    walk(v, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(&serde_json::to_value(message).expect("a value"), &mut out);
    out
}

/// What a hostile server puts in its strings: a screen clear, a window
/// title, a bell, a C1 control sequence introducer, a carriage return.
const HOSTILE: &str = "\u{1b}[2J\u{1b}]0;owned\u{7}\u{9b}31m\r\u{7f}";

#[test]
fn no_control_character_of_a_server_reaches_the_caller() {
    use table_protocol::{GameKind, SeatKindSummary, SeatSummary, TableStatus, TableSummary};
    let (target, server) = serve(|listener| async move {
        let mut peer = accept(&listener).await;
        let _ = hear(&mut peer).await;
        say(&mut peer, welcome(&format!("ann{HOSTILE}"), "t", 30)).await;
        let seat = |player: &str| SeatSummary {
            kind: SeatKindSummary::Human,
            level: Some(format!("steady{HOSTILE}")),
            player: Some(player.to_string()),
            connected: true,
            away: false,
            rating: None,
            stand_in_in: None,
            bot: false,
            invited: false,
        };
        let table = TableSummary {
            id: 7,
            game: GameKind::Cubes,
            ruleset: format!("Blitz{HOSTILE}"),
            setup: serde_json::json!({ format!("key{HOSTILE}"): format!("value{HOSTILE}") }),
            seats: vec![seat(&format!("bob{HOSTILE}")), seat("cy\u{1b}P+q\u{1b}\\")],
            status: TableStatus::Playing,
            private: false,
            spectators: 0,
            seq: 1,
            rated: false,
            arena: None,
            bots: false,
        };
        say(
            &mut peer,
            ServerMessage::Tables {
                tables: vec![table],
            },
        )
        .await;
        say(
            &mut peer,
            ServerMessage::Rankings {
                game: GameKind::Cubes,
                text: format!("1. ann{HOSTILE}\n2. bob\t9\n"),
            },
        )
        .await;
        say(
            &mut peer,
            ServerMessage::error(ErrorCode::BadMessage, format!("no{HOSTILE}")),
        )
        .await;
        // A message that is not the protocol's, then a close whose reason
        // carries the same.
        peer.send(Message::text(format!("{{\"type\":{HOSTILE}")))
            .await
            .expect("send");
        peer.close(Some(tokio_tungstenite::tungstenite::protocol::CloseFrame {
            code: tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode::Normal,
            reason: format!("bye{HOSTILE}").into(),
        }))
        .await
        .expect("close");
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let clean = |s: &str| s.chars().all(|c| c == '\n' || !c.is_control());
    runtime.block_on(async {
        let mut conn = crate::Connection::open(&target).await.expect("open");
        let welcome = conn.hello(Some("ann"), None).await.expect("welcome");
        assert!(clean(&welcome.name), "{:?}", welcome.name);
        assert!(welcome.name.starts_with("ann"));
        let mut seen = Vec::new();
        for _ in 0..3 {
            let message = conn.recv().await.expect("a message");
            for s in strings(&message) {
                assert!(clean(&s), "{s:?} in {message:?}");
            }
            seen.push(message);
        }
        match &seen[1] {
            ServerMessage::Rankings { text, .. } => {
                assert_eq!(text.lines().count(), 2, "{text:?}");
                assert!(text.contains("2. bob 9"), "{text:?}");
                assert!(text.contains(crate::REPLACEMENT), "{text:?}");
            }
            other => panic!("not the rankings: {other:?}"),
        }
        let bad = conn.recv().await.expect_err("not a message").to_string();
        assert!(clean(&bad), "{bad:?}");
        let closed = conn.recv().await.expect_err("closed").to_string();
        assert!(clean(&closed), "{closed:?}");
        assert!(closed.contains("bye"), "{closed}");
    });
    server.join().expect("server");
}

#[test]
fn endings_ladders_ratings_and_countdowns_reach_the_caller_without_control_characters() {
    use table_protocol::{
        Ending, GameKind, LadderEntry, RatingBrief, SeatKindSummary, SeatSummary,
    };
    let (target, server) = serve(|listener| async move {
        let mut peer = accept(&listener).await;
        let _ = hear(&mut peer).await;
        say(&mut peer, welcome("ann", "t", 30)).await;
        say(
            &mut peer,
            ServerMessage::Ended {
                tables: vec![Ending {
                    table: 7,
                    game: GameKind::Mille,
                    ruleset: format!("bsd{HOSTILE}"),
                    abandoned: true,
                    message: format!("bob{HOSTILE} won 5000 to 3150."),
                }],
            },
        )
        .await;
        say(
            &mut peer,
            ServerMessage::Ladder {
                category: format!("mille-bsd{HOSTILE}"),
                title: format!("Mille Bornes{HOSTILE}"),
                entries: vec![LadderEntry {
                    name: format!("computer: classic{HOSTILE}"),
                    rating: 1712,
                    deviation: 48,
                    provisional: false,
                    games: 4,
                    wins: 3,
                    last_played: 1_795_000_000,
                    computer: true,
                    bot: false,
                }],
            },
        )
        .await;
        let seat = SeatSummary {
            kind: SeatKindSummary::Human,
            level: None,
            player: Some(format!("bob{HOSTILE}")),
            connected: false,
            away: false,
            rating: Some(RatingBrief {
                rating: 1540,
                deviation: 160,
                provisional: true,
            }),
            stand_in_in: Some(45),
            bot: false,
            invited: false,
        };
        say(
            &mut peer,
            ServerMessage::Update {
                table: 3,
                seq: 1,
                observation: Value::String(format!("obs{HOSTILE}")),
                seats: vec![seat],
            },
        )
        .await;
        let _ = peer.next().await;
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let session = Session::start(target, Some("ann".into()), TokenStore::in_dir(dir.path()));
    assert_eq!(note(&session), Note::Connection(Link::Connected));
    assert!(matches!(message(&session), ServerMessage::Welcome { .. }));
    // The welcome's limits are kept for the game (its `away_seconds`).
    assert_eq!(session.limits().map(|l| l.away_seconds), Some(60));
    let clean = |s: &str| s.chars().all(|c| c == '\n' || !c.is_control());
    let ended = message(&session);
    let ladder = message(&session);
    let update = message(&session);
    for m in [&ended, &ladder, &update] {
        for s in strings(m) {
            assert!(clean(&s), "{s:?} in {m:?}");
        }
    }
    match ended {
        ServerMessage::Ended { tables } => {
            assert!(tables[0].message.starts_with("bob"), "{tables:?}");
            assert!(tables[0].message.ends_with("won 5000 to 3150."));
            assert!(tables[0].abandoned);
        }
        other => panic!("not the endings: {other:?}"),
    }
    match ladder {
        ServerMessage::Ladder { entries, .. } => {
            assert!(entries[0].name.starts_with("computer: classic"));
            assert_eq!(entries[0].rating, 1712);
        }
        other => panic!("not the ladder: {other:?}"),
    }
    match update {
        ServerMessage::Update { seats, .. } => {
            assert_eq!(seats[0].stand_in_in, Some(45));
            assert!(seats[0].rating.is_some_and(|r| r.provisional));
        }
        other => panic!("not the update: {other:?}"),
    }
    drop(session);
    server.join().expect("the server's script held");
}
