//! End-to-end: `cubes rank --connect` shows the server's ratings of the
//! same kind of game under its classic rankings: at a real `cubes serve`
//! (nobody rated yet, for Standard, Blitz and Jokers games), and at a
//! scripted server (a ladder printed as a table, a server that keeps no
//! ratings still showing its rankings).

mod common;

use common::{BIN, run};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

/// A `cubes serve` on a free loopback port, stopped when dropped.
struct Server {
    child: Child,
    address: String,
}

impl Server {
    fn start(data: &std::path::Path) -> Server {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let address = format!("127.0.0.1:{port}");
        let child = Command::new(BIN)
            .args(["serve", "--listen", &address, "--no-socket"])
            .arg("--data")
            .arg(data.join("server"))
            .env("GAMES_DATA_DIR", data.join("server-env"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start cubes serve");
        let server = Server { child, address };
        let start = Instant::now();
        while TcpStream::connect(&server.address).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the server does not listen at {}",
                server.address
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_ratings_of_the_same_kind_of_game_follow_the_rankings() {
    let root = tempfile::tempdir().expect("tempdir");
    let server = Server::start(root.path());
    let address = &server.address;
    let me = root.path().join("me");
    for (args, title) in [
        (vec![], "Cubes, standard"),
        (vec!["--blitz"], "Cubes, blitz"),
        (vec!["--jokers"], "Cubes, with jokers"),
        (vec!["--blitz", "--jokers"], "Cubes, with jokers"),
    ] {
        let mut all = vec!["rank", "--connect", address.as_str()];
        all.extend(&args);
        let (ok, out, err) = run(&me, &all, "");
        assert!(ok, "{args:?}: {err}");
        let (rankings, ratings) = out.split_once("\n\n").expect("two parts");
        assert!(rankings.contains("No games"), "{out}");
        assert_eq!(
            ratings,
            format!("Ratings: {title} at {address}: nobody is rated yet.\n"),
            "{args:?}"
        );
    }
    // --jokers is about a server's ratings: the score file has none.
    let (ok, _, err) = run(&me, &["rank", "--jokers"], "");
    assert!(!ok);
    assert!(err.contains("--connect"), "{err}");
}

/// A scripted table server on the loopback: `welcome` to every `hello`,
/// some rankings to `rankings` and `ladder` to `ladder`.
fn scripted_server(ladder: Value) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("address");
    listener.set_nonblocking(true).expect("nonblocking");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            while let Ok((stream, _)) = listener.accept().await {
                let ladder = ladder.clone();
                tokio::spawn(async move {
                    let Ok(mut ws) = tokio_tungstenite::accept_async(stream).await else {
                        return;
                    };
                    while let Some(Ok(frame)) = ws.next().await {
                        let Message::Text(text) = frame else { continue };
                        let m: Value = serde_json::from_str(text.as_str()).unwrap_or_default();
                        let reply = match m["type"].as_str() {
                            Some("hello") => json!({"type": "welcome", "version": 1,
                                "server": "scripted", "name": m["name"], "token": "0123456789abcdef",
                                "limits": {"max_message_bytes": 65536, "messages_per_second": 20,
                                           "burst": 40, "idle_seconds": 120, "away_seconds": 60},
                                "seats": [], "games": []}),
                            Some("rankings") => json!({"type": "rankings", "game": "cubes",
                                "text": "Standard games:\n 1. ann  2 games\n"}),
                            Some("ladder") => ladder.clone(),
                            _ => continue,
                        };
                        if ws
                            .send(Message::Text(reply.to_string().into()))
                            .await
                            .is_err()
                        {
                            return;
                        }
                    }
                });
            }
        });
    });
    addr
}

#[test]
fn a_ladder_is_a_table_under_the_rankings() {
    let addr = scripted_server(json!({"type": "ladder", "category": "cubes-standard",
        "title": "Cubes, standard",
        "entries": [
            {"name": "ann", "rating": 1603, "deviation": 95, "provisional": false,
             "games": 20, "wins": 12, "last_played": 1_795_000_000, "computer": false},
            {"name": "computer: steady", "rating": 1490, "deviation": 40, "provisional": false,
             "games": 300, "wins": 150, "last_played": 1_794_900_000, "computer": true}]}));
    let data = tempfile::tempdir().expect("tempdir");
    let address = addr.to_string();
    let (ok, out, err) = run(data.path(), &["rank", "--connect", &address], "");
    assert!(ok, "{err}");
    assert_eq!(
        out,
        format!(
            "Standard games:\n 1. ann  2 games\n\n\
             Ratings: Cubes, standard at {address}\n\
             Rank  Name                 Rating  Deviation  Games   Wins  Last played\n\
             \x20  1  ann                   1603          95     20     12  2026-11-18\n\
             \x20  2  computer: steady *    1490          40    300    150  2026-11-17\n\
             * a computer player\n"
        )
    );
}

#[test]
fn a_server_without_ratings_still_shows_its_rankings() {
    let addr = scripted_server(json!({"type": "error", "code": "unavailable",
        "message": "this server keeps no ratings yet"}));
    let data = tempfile::tempdir().expect("tempdir");
    let address = addr.to_string();
    let (ok, out, err) = run(data.path(), &["rank", "--connect", &address], "");
    assert!(ok, "{err}");
    assert_eq!(
        out,
        format!(
            "Standard games:\n 1. ann  2 games\n\n\
             Ratings: the table server at {address} shows none: this server keeps no ratings yet\n"
        )
    );
}
