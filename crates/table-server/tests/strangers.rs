//! The server open to strangers, over real sockets on loopback: what one
//! client can make it hold is bounded (silent and half-sent connections,
//! connections per address and in all), and a client behind a trusted
//! proxy is counted by the address the proxy names. Two client addresses
//! on one machine: 127.0.0.1 and 127.0.0.2 are both loopback.

mod common;

use common::Client;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use table_protocol::{ClientMessage, ServerMessage, VERSION};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// A TCP connection to `server` from the loopback address `from`.
async fn tcp_from(from: &str, server: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("socket");
    socket
        .bind(format!("{from}:0").parse().expect("address"))
        .expect("bind");
    socket.connect(server).await.expect("connect")
}

/// Reads until the server closes; answers what it sent, or `None` if it
/// did not close within `within`.
async fn read_to_close(stream: &mut TcpStream, within: Duration) -> Option<String> {
    let mut got = Vec::new();
    let read = tokio::time::timeout(within, stream.read_to_end(&mut got)).await;
    match read {
        Ok(_) => Some(String::from_utf8_lossy(&got).into_owned()),
        Err(_) => None,
    }
}

/// A WebSocket from `from`, with `headers` on its upgrade request; the
/// HTTP status when it is refused.
async fn ws_from(
    from: &str,
    server: SocketAddr,
    headers: &[(&'static str, &str)],
) -> Result<Client, u16> {
    let stream = tcp_from(from, server).await;
    let mut request = format!("ws://{server}/ws")
        .into_client_request()
        .expect("request");
    for (k, v) in headers {
        request
            .headers_mut()
            .insert(*k, v.parse().expect("header value"));
    }
    match tokio_tungstenite::client_async(request, tokio_tungstenite::MaybeTlsStream::Plain(stream))
        .await
    {
        Ok((ws, _)) => Ok(Client::over(ws)),
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => Err(r.status().as_u16()),
        Err(e) => panic!("the WebSocket failed otherwise: {e}"),
    }
}

/// Says hello and answers whether the server welcomed the name.
async fn welcomed(c: &mut Client, name: &str) -> bool {
    c.send(&ClientMessage::Hello {
        version: VERSION,
        name: Some(name.into()),
        token: None,
        client: None,
        bot: None,
    })
    .await;
    matches!(c.recv().await, ServerMessage::Welcome { .. })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_and_half_sent_connections_are_closed_after_the_header_time() {
    let dir = tempfile::tempdir().expect("dir");
    let mut config = common::config(dir.path());
    config.header_timeout = Duration::from_millis(400);
    let server = table_server::start(config).await.expect("start");
    let start = Instant::now();
    let mut silent = tcp_from("127.0.0.1", server.addr).await;
    let mut half = tcp_from("127.0.0.1", server.addr).await;
    half.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        .await
        .expect("write");
    // A whole request is answered; the connection kept alive after it may
    // not stay silent for longer either.
    let mut kept = tcp_from("127.0.0.1", server.addr).await;
    kept.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .expect("write");
    for (what, stream) in [
        ("silent", &mut silent),
        ("half-sent", &mut half),
        ("kept alive", &mut kept),
    ] {
        let got = read_to_close(stream, Duration::from_secs(5))
            .await
            .unwrap_or_else(|| panic!("the {what} connection is still open after 5 s"));
        if what == "kept alive" {
            assert!(got.starts_with("HTTP/1.1 200"), "{got}");
        }
    }
    let waited = start.elapsed();
    assert!(
        waited >= Duration::from_millis(400),
        "closed after {waited:?}"
    );
    // The server serves on.
    assert_eq!(common::health(server.addr).await["status"], "ok");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_is_capped_and_another_still_gets_in() {
    let dir = tempfile::tempdir().expect("dir");
    let mut config = common::config(dir.path());
    config.connections_per_address = 4;
    config.header_timeout = Duration::from_secs(30);
    let server = table_server::start(config).await.expect("start");
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(tcp_from("127.0.0.1", server.addr).await);
    }
    // The fifth is turned away at once, with a reason a person can read.
    let mut fifth = tcp_from("127.0.0.1", server.addr).await;
    let got = read_to_close(&mut fifth, Duration::from_secs(5))
        .await
        .expect("the fifth connection is closed");
    assert!(got.starts_with("HTTP/1.1 503"), "{got}");
    assert!(got.contains("from this address"), "{got}");
    assert_eq!(
        ws_from("127.0.0.1", server.addr, &[]).await.err(),
        Some(503)
    );
    // Another address plays as if nothing happened.
    let mut other = ws_from("127.0.0.2", server.addr, &[])
        .await
        .expect("another address gets in");
    assert!(welcomed(&mut other, "ann").await);
    // And the first gets in again once it lets go.
    held.clear();
    let again = Instant::now();
    loop {
        match ws_from("127.0.0.1", server.addr, &[]).await {
            Ok(mut c) => {
                assert!(welcomed(&mut c, "bob").await);
                break;
            }
            Err(status) => {
                assert_eq!(status, 503);
                assert!(again.elapsed() < Duration::from_secs(5), "still refused");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }
    // Both refusals are counted (and any retry refused while the server
    // had not yet seen the four close).
    let metrics = common::get(server.addr, "/metrics").await.1;
    let refused: u64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("table_refused_connections_total "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    assert!(refused >= 2, "{metrics}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_total_cap_holds_for_every_address() {
    let dir = tempfile::tempdir().expect("dir");
    let mut config = common::config(dir.path());
    config.max_connections = Some(3);
    config.header_timeout = Duration::from_secs(30);
    let server = table_server::start(config).await.expect("start");
    let mut held = Vec::new();
    for from in ["127.0.0.1", "127.0.0.2", "127.0.0.3"] {
        held.push(tcp_from(from, server.addr).await);
    }
    let mut late = tcp_from("127.0.0.4", server.addr).await;
    let got = read_to_close(&mut late, Duration::from_secs(5))
        .await
        .expect("closed");
    assert!(
        got.starts_with("HTTP/1.1 503") && got.contains("its most"),
        "{got}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_cap() {
    let dir = tempfile::tempdir().expect("dir");
    let mut config = common::config(dir.path());
    config.connections_per_address = 2;
    config.trusted_proxies = vec!["127.0.0.1".parse().expect("ip")];
    let server = table_server::start(config).await.expect("start");
    let one = [("x-forwarded-for", "198.51.100.7")];
    let mut a = ws_from("127.0.0.1", server.addr, &one)
        .await
        .expect("first");
    let mut b = ws_from("127.0.0.1", server.addr, &one)
        .await
        .expect("second");
    assert!(welcomed(&mut a, "ann").await && welcomed(&mut b, "bob").await);
    assert_eq!(
        ws_from("127.0.0.1", server.addr, &one).await.err(),
        Some(503),
        "a third from the same forwarded client"
    );
    // The proxy's other clients are not held back by that one.
    let two = [("x-forwarded-for", "198.51.100.8")];
    let mut c = ws_from("127.0.0.1", server.addr, &two)
        .await
        .expect("another client behind the proxy");
    assert!(welcomed(&mut c, "cy").await);
    // An untrusted peer's header is its own word, and counts for nothing:
    // its connections count against its own address.
    let mut d = ws_from("127.0.0.2", server.addr, &one)
        .await
        .expect("direct");
    let mut e = ws_from("127.0.0.2", server.addr, &two)
        .await
        .expect("direct");
    assert!(welcomed(&mut d, "dee").await && welcomed(&mut e, "eve").await);
    assert_eq!(
        ws_from("127.0.0.2", server.addr, &[]).await.err(),
        Some(503)
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_data_directory_and_the_database_are_the_owners_alone() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path| {
        std::fs::metadata(p)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
            .permissions()
            .mode()
            & 0o777
    };
    let root = tempfile::tempdir().expect("dir");
    // A new directory, and one an earlier version made readable to all.
    let fresh = root.path().join("fresh/data");
    let old = root.path().join("old");
    std::fs::create_dir(&old).expect("old dir");
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    for dir in [fresh, old] {
        let server = table_server::start(common::config(&dir))
            .await
            .expect("start");
        // A name registered: the database and its companions are written.
        let mut c = ws_from("127.0.0.1", server.addr, &[]).await.expect("ws");
        assert!(welcomed(&mut c, "ann").await);
        assert_eq!(mode(&dir), 0o700, "{}", dir.display());
        for file in ["server.db", "server.db-wal", "server.db-shm"] {
            assert_eq!(mode(&dir.join(file)), 0o600, "{file} in {}", dir.display());
        }
        server.stop().await;
    }
}

/// `GET path` with extra header lines: the status code.
async fn status_of(addr: SocketAddr, path: &str, extra: &str) -> u16 {
    let mut tcp = TcpStream::connect(addr).await.expect("connect");
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{extra}Connection: close\r\n\r\n");
    tcp.write_all(request.as_bytes()).await.expect("write");
    let text = read_to_close(&mut tcp, Duration::from_secs(10))
        .await
        .expect("an answer");
    text.split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebinding_page_is_refused_and_the_public_url_is_not() {
    let dir = tempfile::tempdir().expect("dir");
    let mut config = common::config(dir.path());
    config.public_url = Some("https://games.example.org".into());
    let server = table_server::start(config).await.expect("start");
    let port = server.addr.port();
    let rebind_host = format!("rebind.example:{port}");
    let rebind_origin = format!("http://rebind.example:{port}");
    assert_eq!(
        ws_from(
            "127.0.0.1",
            server.addr,
            &[("host", &rebind_host), ("origin", &rebind_origin)]
        )
        .await
        .err(),
        Some(403),
        "a stranger's name pointed at the server"
    );
    let mut public = ws_from(
        "127.0.0.1",
        server.addr,
        &[
            ("host", "games.example.org"),
            ("origin", "https://games.example.org"),
        ],
    )
    .await
    .expect("the public page");
    assert!(welcomed(&mut public, "ann").await);
    let own = format!("http://127.0.0.1:{port}");
    let mut local = ws_from("127.0.0.1", server.addr, &[("origin", &own)])
        .await
        .expect("the page at the server's address");
    assert!(welcomed(&mut local, "bob").await);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_figures_are_for_this_machine_or_their_own_listener() {
    let dir = tempfile::tempdir().expect("dir");
    let mut config = common::config(dir.path());
    config.trusted_proxies = vec!["127.0.0.1".parse().expect("ip")];
    let server = table_server::start(config).await.expect("start");
    assert_eq!(status_of(server.addr, "/metrics", "").await, 200);
    // Through the proxy, a client from elsewhere is refused them.
    let far = "X-Forwarded-For: 203.0.113.9\r\n";
    assert_eq!(status_of(server.addr, "/metrics", far).await, 404);
    assert_eq!(status_of(server.addr, "/health", far).await, 200);
    server.stop().await;
    let mut config = common::config(dir.path());
    config.metrics_listen = Some("127.0.0.1:0".parse().expect("addr"));
    let server = table_server::start(config).await.expect("start");
    let figures = server.metrics_addr.expect("a listener of their own");
    assert_eq!(status_of(server.addr, "/metrics", "").await, 404);
    assert_eq!(status_of(figures, "/metrics", "").await, 200);
    assert_eq!(status_of(figures, "/health", "").await, 200);
    server.stop().await;
}

/// The answer to `create`: the table, or the refusal's code.
async fn created(c: &mut Client) -> Result<u64, table_protocol::ErrorCode> {
    c.until(|m| match m {
        ServerMessage::Created { table, .. } => Some(Ok(table.id)),
        ServerMessage::Error(e) => Some(Err(e.code)),
        _ => None,
    })
    .await
}

/// A table of one person (who sits) and a computer: it starts at once.
fn against_a_computer() -> ClientMessage {
    common::create(
        "cubes",
        serde_json::Value::Null,
        serde_json::json!([{"kind": "human"}, {"kind": "computer", "level": "steady"}]),
        Some(0),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_opens_five_unfinished_tables_playing_ones_included_from_any_connection() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(common::config(dir.path()))
        .await
        .expect("start");
    let mut ann = Client::open(server.addr).await;
    let token = ann.hello("ann", None).await;
    for _ in 0..table_server::conn::TABLES_PER_NAME {
        ann.send(&against_a_computer()).await;
        created(&mut ann).await.expect("a table");
        ann.until(|m| matches!(m, ServerMessage::Joined { .. }).then_some(()))
            .await;
    }
    // They all play; none waits. One more is refused, from this
    // connection or another of the same name.
    ann.send(&ClientMessage::List).await;
    let statuses: Vec<_> = ann
        .until(|m| match m {
            ServerMessage::Tables { tables } => {
                Some(tables.iter().map(|t| t.status).collect::<Vec<_>>())
            }
            _ => None,
        })
        .await;
    assert!(
        statuses
            .iter()
            .all(|s| *s == table_protocol::TableStatus::Playing),
        "{statuses:?}"
    );
    ann.send(&against_a_computer()).await;
    assert_eq!(
        created(&mut ann).await,
        Err(table_protocol::ErrorCode::BadSetup)
    );
    let mut again = Client::open(server.addr).await;
    again.hello("ann", Some(token)).await;
    again.send(&against_a_computer()).await;
    assert_eq!(
        created(&mut again).await,
        Err(table_protocol::ErrorCode::BadSetup)
    );
    // Another name is not held back.
    let mut bob = Client::open(server.addr).await;
    bob.hello("bob", None).await;
    bob.send(&against_a_computer()).await;
    created(&mut bob).await.expect("bob's table");
    server.stop().await;
}

/// Table `table`'s sequence number, as the lobby shows it.
async fn seq_of(c: &mut Client, table: u64) -> u64 {
    c.send(&ClientMessage::List).await;
    c.until(|m| match m {
        ServerMessage::Tables { tables } => {
            Some(tables.iter().find(|t| t.id == table).map(|t| t.seq))
        }
        _ => None,
    })
    .await
    .expect("the table is listed")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_nobody_is_at_makes_no_move_until_somebody_comes() {
    let dir = tempfile::tempdir().expect("dir");
    let mut config = common::config(dir.path());
    config.away = Duration::from_millis(200);
    let server = table_server::start(config).await.expect("start");
    let mut ann = Client::open(server.addr).await;
    let token = ann.hello("ann", None).await;
    ann.send(&against_a_computer()).await;
    let table = created(&mut ann).await.expect("a table");
    // Ann leaves at once: were a computer to stand in for her after
    // 200 ms, two computers would play the game out with nobody there.
    drop(ann);
    let mut eve = Client::open(server.addr).await;
    eve.hello("eve", None).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    let first = seq_of(&mut eve, table).await;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(
        seq_of(&mut eve, table).await,
        first,
        "moves with nobody at the table"
    );
    // A spectator is nobody at the table: still no move.
    eve.send(&ClientMessage::Watch {
        table,
        code: None,
        since: None,
    })
    .await;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(
        seq_of(&mut eve, table).await,
        first,
        "moves with only a spectator at the table"
    );
    // Ann comes back: the game goes on, her turns hers.
    let mut ann = Client::open(server.addr).await;
    ann.hello("ann", Some(token)).await;
    ann.send(&ClientMessage::Join {
        table,
        seat: None,
        code: None,
        since: None,
    })
    .await;
    let mut observation = ann
        .until(|m| match m {
            ServerMessage::Joined { observation, .. } => Some(observation.clone()),
            _ => None,
        })
        .await;
    let start = Instant::now();
    let mut id = 0;
    while seq_of(&mut eve, table).await == first {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "no move once ann was back"
        );
        if let Some(action) = common::legal(&observation).first().cloned() {
            id += 1;
            ann.send(&ClientMessage::Move { table, id, action }).await;
        }
        observation = ann
            .until(|m| match m {
                ServerMessage::Update { observation, .. } => Some(observation.clone()),
                _ => None,
            })
            .await;
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_registers_so_many_names_an_hour() {
    let dir = tempfile::tempdir().expect("dir");
    let mut config = common::config(dir.path());
    config.registrations_per_hour = 3;
    let server = table_server::start(config).await.expect("start");
    let mut c = ws_from("127.0.0.1", server.addr, &[]).await.expect("ws");
    let mut tokens = Vec::new();
    for k in 0..3 {
        tokens.push(c.hello(&format!("name {k}"), None).await);
        c = ws_from("127.0.0.1", server.addr, &[]).await.expect("ws");
    }
    c.send(&ClientMessage::Hello {
        version: VERSION,
        name: Some("name 3".into()),
        token: None,
        client: None,
        bot: None,
    })
    .await;
    match c.recv().await {
        ServerMessage::Error(e) => {
            assert_eq!(e.code, table_protocol::ErrorCode::RateLimited, "{e:?}");
            assert!(e.message.contains("last hour"), "{}", e.message);
        }
        other => panic!("a fourth name was registered: {other:?}"),
    }
    // A name already registered signs in as before; another address
    // registers.
    assert_eq!(c.hello("name 0", Some(tokens[0].clone())).await, tokens[0]);
    let mut other = ws_from("127.0.0.2", server.addr, &[]).await.expect("ws");
    assert!(welcomed(&mut other, "name 3").await);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unstarted_table_closes_and_goes_and_an_unused_name_is_let_go() {
    let dir = tempfile::tempdir().expect("dir");
    let mut config = common::config(dir.path());
    config.close_unstarted_after = Duration::from_millis(500);
    config.forget_names_after = Some(Duration::ZERO);
    let server = table_server::start(config).await.expect("start");
    let mut ann = Client::open(server.addr).await;
    let token = ann.hello("ann", None).await;
    ann.send(&common::create(
        "mille",
        serde_json::json!({"rules": "bsd", "players": 2}),
        serde_json::json!([{"kind": "human"}, {"kind": "human"}]),
        Some(0),
    ))
    .await;
    let table = created(&mut ann).await.expect("a table");
    // Nobody comes: the table closes, and ann is told.
    let why = ann
        .until(|m| match m {
            ServerMessage::Error(e) if e.table == Some(table) => Some((e.code, e.message.clone())),
            _ => None,
        })
        .await;
    assert_eq!(why.0, table_protocol::ErrorCode::GameOver, "{}", why.1);
    assert!(why.1.contains("nobody came"), "{}", why.1);
    drop(ann);
    // The next sweep (a second on: times are kept in seconds) removes the
    // table, and the name, which has no game.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    server.shared.sweep().await;
    let mut bob = Client::open(server.addr).await;
    bob.hello("bob", None).await;
    bob.send(&ClientMessage::Watch {
        table,
        code: None,
        since: None,
    })
    .await;
    let code = bob
        .until(|m| match m {
            ServerMessage::Error(e) if e.table == Some(table) => Some(e.code),
            _ => None,
        })
        .await;
    assert_eq!(code, table_protocol::ErrorCode::NoSuchTable);
    let mut again = Client::open(server.addr).await;
    again
        .send(&ClientMessage::Hello {
            version: VERSION,
            name: Some("ann".into()),
            token: Some(token),
            client: None,
            bot: None,
        })
        .await;
    match again.recv().await {
        ServerMessage::Error(e) => assert_eq!(e.code, table_protocol::ErrorCode::BadToken),
        other => panic!("the name was kept: {other:?}"),
    }
    // Free again for whoever comes.
    let mut newcomer = Client::open(server.addr).await;
    newcomer.hello("ann", None).await;
    server.stop().await;
}

/// Says hello as `name` with `token`: the refusal's code, or the token.
async fn sign_in(
    addr: SocketAddr,
    name: &str,
    token: Option<&str>,
) -> Result<String, table_protocol::ErrorCode> {
    let mut c = Client::open(addr).await;
    c.send(&ClientMessage::Hello {
        version: VERSION,
        name: Some(name.into()),
        token: token.map(str::to_string),
        client: None,
        bot: None,
    })
    .await;
    match c.recv().await {
        ServerMessage::Welcome { token, .. } => Ok(token),
        ServerMessage::Error(e) => Err(e.code),
        other => panic!("{other:?}"),
    }
}

/// Reads until the connection closes: its close reason.
async fn close_reason(c: &mut Client) -> String {
    loop {
        match c.next(Duration::from_secs(5)).await {
            Some(common::Got::Text(_)) => {}
            Some(common::Got::Close(Some((_, reason)))) => return reason,
            other => panic!("expected a close, got {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_is_replaced_or_revoked_and_the_old_one_signs_in_nowhere() {
    use table_protocol::ErrorCode;
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(common::config(dir.path()))
        .await
        .expect("start");
    let mut ann = Client::open(server.addr).await;
    let first = ann.hello("ann", None).await;
    let mut elsewhere = Client::open(server.addr).await;
    elsewhere.hello("ann", Some(first.clone())).await;
    // A token that may have been seen: replaced.
    ann.send(&ClientMessage::NewToken).await;
    let second = ann
        .until(|m| match m {
            ServerMessage::Token { token } => Some(token.clone()),
            _ => None,
        })
        .await;
    assert_ne!(second, first);
    assert!(close_reason(&mut elsewhere).await.contains("replaced"));
    assert_eq!(
        sign_in(server.addr, "ann", Some(&first)).await,
        Err(ErrorCode::BadToken)
    );
    assert_eq!(
        sign_in(server.addr, "ann", Some(&second)).await,
        Ok(second.clone())
    );
    // Signing out revokes it; a name with no game is free again.
    ann.send(&ClientMessage::SignOut).await;
    ann.until(|m| matches!(m, ServerMessage::SignedOut).then_some(()))
        .await;
    assert!(close_reason(&mut ann).await.contains("signed out"));
    assert_eq!(
        sign_in(server.addr, "ann", Some(&second)).await,
        Err(ErrorCode::BadToken)
    );
    assert!(sign_in(server.addr, "ann", None).await.is_ok());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rankings_kept_made_are_few_whatever_is_asked() {
    // Only a shared database keeps rankings made.
    let Some(cluster) = std::env::var("TABLE_SERVER_TEST_POSTGRES")
        .ok()
        .filter(|u| !u.is_empty())
    else {
        assert!(
            std::env::var_os("TABLE_SERVER_REQUIRE_POSTGRES").is_none(),
            "TABLE_SERVER_REQUIRE_POSTGRES is set and TABLE_SERVER_TEST_POSTGRES is not"
        );
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let name = format!("r_{}", std::process::id());
    let url = table_server::store::create_database(&cluster, &name)
        .await
        .expect("a database");
    let mut config = common::config(dir.path());
    config.database = Some(url);
    config.socket = None;
    config.limits.messages_per_second = 1000;
    config.limits.burst = 2000;
    let server = table_server::start(config).await.expect("start");
    let mut c = Client::open(server.addr).await;
    c.hello("ann", None).await;
    for k in 0..100 {
        c.send(&ClientMessage::Rankings {
            game: table_protocol::GameKind::Cubes,
            kind: Some(format!("kind {k}")),
            min_games: Some(k),
        })
        .await;
        c.until(|m| matches!(m, ServerMessage::Rankings { .. }).then_some(()))
            .await;
    }
    let kept = server.shared.rankings_cached();
    assert!(
        (1..=table_server::scores::RANKINGS_CACHED).contains(&kept),
        "{kept} rankings kept"
    );
    server.stop().await;
}

/// Says hello as another instance's link does.
async fn link_hello(c: &mut Client) {
    let hello = ClientMessage::Hello {
        version: VERSION,
        name: Some("ann".into()),
        token: None,
        client: Some(table_server::forward::FORWARDED.into()),
        bot: None,
    };
    let text = serde_json::to_string(&hello).expect("json");
    c.send_text(&text).await.expect("sent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_without_the_instances_secret_is_refused() {
    let dir = tempfile::tempdir().expect("dir");
    let mut config = common::config(dir.path());
    config.link_secret = Some("the instances' shared link secret".into());
    let server = table_server::start(config).await.expect("start");
    // A client that says it is a link, without the secret or with another.
    for given in [None, Some("a guess at the secret")] {
        let headers: Vec<(&'static str, &str)> = given
            .map(|g| vec![(table_server::forward::LINK_HEADER, g)])
            .unwrap_or_default();
        let mut c = ws_from("127.0.0.1", server.addr, &headers)
            .await
            .expect("ws");
        link_hello(&mut c).await;
        match c.recv().await {
            ServerMessage::Error(e) => {
                assert_eq!(e.code, table_protocol::ErrorCode::Handshake, "{e:?}")
            }
            other => panic!("a link without the secret was welcomed: {other:?}"),
        }
        assert!(close_reason(&mut c).await.contains("secret"));
    }
    // With it, the link is welcomed.
    let mut link = ws_from(
        "127.0.0.1",
        server.addr,
        &[(
            table_server::forward::LINK_HEADER,
            "the instances' shared link secret",
        )],
    )
    .await
    .expect("ws");
    link_hello(&mut link).await;
    assert!(matches!(link.recv().await, ServerMessage::Welcome { .. }));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_uncapped_address_is_held_to_the_total_only() {
    let dir = tempfile::tempdir().expect("dir");
    let mut config = common::config(dir.path());
    config.connections_per_address = 2;
    config.registrations_per_hour = 1;
    config.uncapped = vec!["127.0.0.1".parse().expect("ip")];
    let server = table_server::start(config).await.expect("start");
    let mut generator = Vec::new();
    for k in 0..4 {
        let mut c = ws_from("127.0.0.1", server.addr, &[])
            .await
            .expect("uncapped");
        assert!(welcomed(&mut c, &format!("load {k}")).await);
        generator.push(c);
    }
    let mut a = ws_from("127.0.0.2", server.addr, &[]).await.expect("first");
    let _b = ws_from("127.0.0.2", server.addr, &[])
        .await
        .expect("second");
    assert_eq!(
        ws_from("127.0.0.2", server.addr, &[]).await.err(),
        Some(503)
    );
    assert!(welcomed(&mut a, "stranger").await);
    server.stop().await;
}
