//! The session against the real table server on this machine: a game over
//! its Unix socket, and a connection cut (through a loopback relay) after
//! the server took a move but before its answer arrived — the session
//! takes the seat back with the events missed and the move is answered
//! with its first sequence number, not played twice.

use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use table_client::protocol::{ClientMessage, ServerMessage, TableId};
use table_client::{Link, Note, Session, Target, TokenStore};
use table_server::{Config, Running};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

const WAIT: Duration = Duration::from_secs(30);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

fn config(dir: &std::path::Path) -> Config {
    let mut c = Config::new(dir.join("server"));
    c.listen = "127.0.0.1:0".parse().expect("addr");
    c.bot_delay = Duration::ZERO;
    c
}

/// Waits for the message `pick` accepts, skipping the others.
fn wait_for<T>(session: &Session, mut pick: impl FnMut(&ServerMessage) -> Option<T>) -> T {
    let deadline = Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match session
            .recv_timeout(left)
            .expect("the awaited message in time")
        {
            Note::Message(m) => {
                if let Some(t) = pick(&m) {
                    return t;
                }
            }
            Note::Connection(Link::Failed(why)) => panic!("the session ended: {why}"),
            Note::Connection(_) => {}
        }
    }
}

/// Waits for the link's next state, skipping messages.
fn wait_for_link(session: &Session) -> Link {
    let deadline = Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if let Note::Connection(link) = session.recv_timeout(left).expect("a link note in time") {
            return link;
        }
    }
}

/// Opens a cubes table against a computer, seated, and returns it with
/// the first observation that lets this seat move.
fn cubes_table(session: &Session) -> (TableId, u64, Value) {
    let create = json!({"type": "create", "game": "cubes", "sit": 0,
        "seats": [{"kind": "human"}, {"kind": "computer", "level": "steady"}]});
    session.send(ClientMessage::parse(&create.to_string()).expect("create"));
    let table = wait_for(session, |m| match m {
        ServerMessage::Created { table, .. } => Some(table.id),
        _ => None,
    });
    let (seq, observation) = wait_for(session, |m| match m {
        ServerMessage::Joined {
            seq, observation, ..
        }
        | ServerMessage::Update {
            seq, observation, ..
        } if !legal(observation).is_empty() => Some((*seq, observation.clone())),
        _ => None,
    });
    (table, seq, observation)
}

fn legal(observation: &Value) -> Vec<Value> {
    observation["legal"].as_array().cloned().unwrap_or_default()
}

#[test]
fn a_game_is_played_over_the_unix_socket() {
    let dir = tempfile::tempdir().expect("dir");
    let rt = runtime();
    let mut c = config(dir.path());
    let socket = dir.path().join("server.sock");
    c.socket = Some(socket.clone());
    let server = rt.block_on(table_server::start(c)).expect("start");
    let target = Target::parse(&socket.display().to_string()).expect("a path");
    let tokens = TokenStore::in_dir(dir.path());
    let session = Session::start(target.clone(), Some("ann".into()), tokens.clone());
    assert_eq!(wait_for_link(&session), Link::Connected);
    let token = wait_for(&session, |m| match m {
        ServerMessage::Welcome { name, token, .. } if name == "ann" => Some(token.clone()),
        _ => None,
    });
    assert_eq!(
        tokens.get(&target).expect("tokens").map(|c| c.token),
        Some(token)
    );
    let (table, seq, observation) = cubes_table(&session);
    let id = session.play(table, legal(&observation)[0].clone());
    let acked = wait_for(&session, |m| match m {
        ServerMessage::Ack { id: i, seq, .. } if *i == id => Some(*seq),
        ServerMessage::Error(e) if e.id == Some(id) => panic!("refused: {e:?}"),
        _ => None,
    });
    assert_eq!(acked, seq + 1);
    drop(session);
    rt.block_on(server.stop());
}

/// A loopback relay between the session and the server that can hold back
/// what the server says and cut every connection through it.
struct Relay {
    port: u16,
    mute: Arc<AtomicBool>,
    cut: watch::Sender<u64>,
}

impl Relay {
    async fn start(upstream: SocketAddr) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("address").port();
        let mute = Arc::new(AtomicBool::new(false));
        let (cut, cuts) = watch::channel(0);
        let muted = Arc::clone(&mute);
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = TcpStream::connect(upstream).await else {
                    continue;
                };
                let mut cuts = cuts.clone();
                cuts.borrow_and_update();
                let muted = Arc::clone(&muted);
                tokio::spawn(async move {
                    let (mut from_client, mut to_client) = client.into_split();
                    let (mut from_server, mut to_server) = server.into_split();
                    let down = async {
                        let mut buf = vec![0; 16 * 1024];
                        loop {
                            let n = match from_server.read(&mut buf).await {
                                Ok(0) | Err(_) => return,
                                Ok(n) => n,
                            };
                            if !muted.load(Ordering::SeqCst)
                                && to_client.write_all(&buf[..n]).await.is_err()
                            {
                                return;
                            }
                        }
                    };
                    tokio::select! {
                        _ = tokio::io::copy(&mut from_client, &mut to_server) => {}
                        () = down => {}
                        _ = cuts.changed() => {}
                    }
                });
            }
        });
        Relay { port, mute, cut }
    }

    fn target(&self) -> Target {
        Target::Tcp {
            host: "127.0.0.1".into(),
            port: self.port,
        }
    }

    /// Drops every connection through the relay, as a broken network does.
    fn cut(&self) {
        self.cut.send_modify(|n| *n += 1);
    }
}

fn table_seq(server: &Running, table: TableId) -> u64 {
    server
        .shared
        .list("ann")
        .iter()
        .find(|t| t.id == table)
        .map_or(0, |t| t.seq)
}

#[test]
fn a_move_whose_answer_was_lost_is_answered_once_after_the_reconnection() {
    let dir = tempfile::tempdir().expect("dir");
    let rt = runtime();
    let server = rt
        .block_on(table_server::start(config(dir.path())))
        .expect("start");
    let relay = rt.block_on(Relay::start(server.addr));
    let session = Session::start(
        relay.target(),
        Some("ann".into()),
        TokenStore::in_dir(dir.path()),
    );
    assert_eq!(wait_for_link(&session), Link::Connected);
    let (table, seq, observation) = cubes_table(&session);

    // The server takes the move, but its answer never arrives.
    relay.mute.store(true, Ordering::SeqCst);
    let id = session.play(table, legal(&observation)[0].clone());
    let deadline = Instant::now() + WAIT;
    while table_seq(&server, table) <= seq {
        assert!(
            Instant::now() < deadline,
            "the server took the move in time"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    relay.cut();
    relay.mute.store(false, Ordering::SeqCst);

    assert!(matches!(
        wait_for_link(&session),
        Link::Reconnecting { attempt: 1, .. }
    ));
    assert_eq!(wait_for_link(&session), Link::Connected);
    // The seat comes back with the events since the last seq seen: the
    // move this session never heard about.
    let events = wait_for(&session, |m| match m {
        ServerMessage::Joined {
            table: t,
            seat: 0,
            observation,
            ..
        } if *t == table => Some(
            observation["events"]
                .as_array()
                .cloned()
                .unwrap_or_default(),
        ),
        _ => None,
    });
    assert!(!events.is_empty(), "the missed events are told");
    let acked = wait_for(&session, |m| match m {
        ServerMessage::Ack { id: i, seq, .. } if *i == id => Some(*seq),
        ServerMessage::Error(e) if e.id == Some(id) => panic!("refused: {e:?}"),
        _ => None,
    });
    assert_eq!(acked, seq + 1, "the first answer, not a second move");
    drop(session);
    rt.block_on(server.stop());
}
