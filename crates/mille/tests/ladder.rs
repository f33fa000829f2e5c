//! End-to-end: `mille ladder --connect` against a real `mille serve` on the
//! loopback (nobody rated, then a rated game's two players, the person
//! provisional, the computer marked), against a scripted server (a ladder
//! printed as given, a refusal said in its own words with status 1), and
//! bad options (status 2) or nothing listening (status 1). The game's
//! document from the server's `/api/games/ID` plays back in `mille
//! replay`.

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::process::Command;
use std::time::Duration;
use table_protocol::{ClientMessage, ServerMessage};
use tokio_tungstenite::tungstenite::Message;

mod server_support;
use server_support::{Client, Server};

const BIN: &str = env!("CARGO_BIN_EXE_mille");

/// `mille ladder ARGS` with a data directory of its own: (exit code,
/// stdout, stderr).
fn ladder(args: &[&str]) -> (i32, String, String) {
    let data = tempfile::tempdir().expect("tempdir");
    ladder_in(data.path(), args)
}

/// `mille ladder ARGS` with its data (the tokens it keeps) in `data`.
fn ladder_in(data: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .arg("ladder")
        .args(args)
        .env("GAMES_DATA_DIR", data)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run mille ladder");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Plays a whole bsd game as `name` against a classic computer at a
/// rated table: the first legal move whenever the seat has one. The
/// table's number.
async fn play_a_rated_game(addr: SocketAddr, name: &str) -> u64 {
    let mut c = Client::open(addr, name).await;
    let create = json!({"type": "create", "game": "mille",
        "setup": {"rules": "bsd", "players": 2, "stacking": false},
        "seats": [{"kind": "human"}, {"kind": "computer", "level": "classic"}],
        "sit": 0, "rated": true});
    c.send(&ClientMessage::parse(&create.to_string()).expect("create"))
        .await;
    let table = c
        .until(|m| match m {
            ServerMessage::Created { table, .. } => Some(table.id),
            _ => None,
        })
        .await;
    let (mut seq, mut observation) = c
        .until(|m| match m {
            ServerMessage::Joined {
                seq, observation, ..
            } => Some((*seq, observation.clone())),
            _ => None,
        })
        .await;
    let mut id = 0;
    let mut acted = None;
    loop {
        if observation["status"]["phase"].as_str() == Some("game_over") {
            let _ = c.ws.close(None).await;
            return table;
        }
        let action: Option<Value> = observation["legal"]
            .as_array()
            .and_then(|l| l.first().cloned());
        if let Some(action) = action
            && acted != Some(seq)
        {
            acted = Some(seq);
            id += 1;
            c.send(&ClientMessage::Move { table, id, action }).await;
        }
        match c.recv().await {
            ServerMessage::Update {
                seq: s,
                observation: o,
                ..
            } => {
                seq = s;
                observation = o;
            }
            ServerMessage::Error(e) => panic!("refused: {e:?}"),
            _ => {}
        }
    }
}

#[test]
fn a_rated_game_puts_both_players_on_the_ladder() {
    let data = tempfile::tempdir().expect("tempdir");
    let os = std::ffi::OsStr::new;
    let server = Server::start(&[
        os("--data"),
        data.path().as_os_str(),
        os("--coup-fourre-window"),
        os("0"),
    ]);
    let address = server.addr.to_string();
    // The viewer's token is kept between the runs, as at a terminal.
    let viewer = tempfile::tempdir().expect("tempdir");
    let ladder = |args: &[&str]| ladder_in(viewer.path(), args);
    let (code, out, err) = ladder(&["--connect", &address, "--name", "viewer"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        format!("Mille Bornes, bsd at {address}: nobody is rated yet.\n")
    );

    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        tokio::time::timeout(
            Duration::from_secs(120),
            play_a_rated_game(server.addr, "ann"),
        )
        .await
        .expect("the game ends within 2 minutes");
    });

    // The result is rated in the transaction that finishes the game, but
    // the game-over update may come a moment before: ask until it shows.
    let end = std::time::Instant::now() + Duration::from_secs(20);
    let out = loop {
        let (code, out, err) = ladder(&["--connect", &address, "--name", "viewer"]);
        assert_eq!(code, 0, "{err}");
        if out.contains("ann") || std::time::Instant::now() > end {
            break out;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("Mille Bornes, bsd at {address}"), "{out}");
    assert!(lines[1].starts_with("Rank  Name"), "{out}");
    let ann = lines
        .iter()
        .find(|l| l.contains(" ann "))
        .expect("ann is rated");
    let computer = lines
        .iter()
        .find(|l| l.contains("computer: classic *"))
        .expect("the computer is rated, and marked");
    // One game: the person's rating is provisional; both have one game,
    // played today.
    assert!(ann.contains('?'), "{ann}");
    for l in [ann, computer] {
        assert!(l.trim_end().ends_with("today"), "{l}");
        assert!(l.contains("      1  "), "one game: {l}");
    }
    assert!(out.contains("? provisional"), "{out}");
    assert!(out.contains("* a computer player"), "{out}");
    // The other ladders have nobody yet.
    let (code, out, err) = ladder(&["--connect", &address, "--name", "viewer", "--players", "4"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        format!("Mille Bornes, classic, 4 players at {address}: nobody is rated yet.\n")
    );
}

/// A scripted table server on the loopback: `welcome` to every `hello`,
/// `answer` to every `ladder`. Runs until the test ends.
fn scripted_server(answer: Value) -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
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
                let answer = answer.clone();
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
                            Some("ladder") => answer.clone(),
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
fn a_ladder_is_printed_as_the_server_gives_it_bots_apart() {
    let addr = scripted_server(json!({"type": "ladder", "category": "mille-classic-4",
        "title": "Mille Bornes, classic, 4 players",
        "entries": [
            {"name": "computer: normal", "rating": 1712, "deviation": 48, "provisional": false,
             "games": 412, "wins": 301, "last_played": 1_795_000_000, "computer": true},
            {"name": "robo", "rating": 1601, "deviation": 60, "provisional": false,
             "games": 40, "wins": 22, "last_played": 1_794_900_000, "computer": false,
             "bot": true},
            {"name": "zoë", "rating": 1540, "deviation": 160, "provisional": true,
             "games": 3, "wins": 2, "last_played": 1_794_900_000, "computer": false}]}));
    let address = addr.to_string();
    let (code, out, err) = ladder(&[
        "--connect",
        &address,
        "--rules",
        "classic",
        "--players",
        "4",
        "--name",
        "ann",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        format!(
            "Mille Bornes, classic, 4 players at {address}\n\
             Rank  Name                 Rating  Deviation  Games   Wins  Last played\n\
             \x20  1  computer: normal *    1712          48    412    301  2026-11-18\n\
             \x20  2  zoë                   1540?        160      3      2  2026-11-17\n\
             \n\
             Bots\n\
             Rank  Name                 Rating  Deviation  Games   Wins  Last played\n\
             \x20  1  robo                  1601          60     40     22  2026-11-17\n\
             ? provisional: too few recent games to trust the rating yet\n\
             * a computer player\n"
        )
    );
}

#[test]
fn a_refusal_is_said_in_the_servers_words() {
    let addr = scripted_server(json!({"type": "error", "code": "bad_setup",
        "message": "there is no ladder of the rules \"bsd\" for 3 players"}));
    let address = addr.to_string();
    let (code, out, err) = ladder(&["--connect", &address, "--name", "ann"]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        err,
        format!(
            "mille ladder: the table server at {address} refused: there is no ladder of the rules \"bsd\" for 3 players\n"
        )
    );
}

#[test]
fn bad_options_and_an_empty_address_are_said_plainly() {
    // Unknown rules, a size the rules do not have: status 2, nothing sent.
    let (code, _, err) = ladder(&["--connect", "127.0.0.1:1", "--rules", "fast"]);
    assert_eq!(code, 2);
    assert!(err.contains("invalid value 'fast' for '--rules"), "{err}");
    let (code, _, err) = ladder(&["--connect", "127.0.0.1:1", "--players", "5"]);
    assert_eq!(code, 2);
    assert!(err.contains("'5'"), "{err}");
    let (code, _, err) = ladder(&[
        "--connect",
        "127.0.0.1:1",
        "--rules",
        "bsd",
        "--players",
        "4",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--rules classic --players 4"), "{err}");
    let (code, _, err) = ladder(&["--connect", "no such host:x:y"]);
    assert_eq!(code, 2);
    assert!(err.contains("is not a table server's address"), "{err}");
    // Nothing listens: the message of `mille --connect`, status 1.
    let free = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let (code, _, err) = ladder(&["--connect", &free.to_string()]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with(&format!("mille ladder: no table server answers at {free}")),
        "{err}"
    );
    assert!(err.contains("`mille serve`"), "{err}");
}

/// The body of `GET path` at `addr` (HTTP/1.1, the connection closed by
/// the server after the answer), with its status code.
fn http_get(addr: SocketAddr, path: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .expect("request");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).expect("answer");
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = answer.split_once("\r\n\r\n").expect("head and body");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    if !chunked {
        return (status, body.to_string());
    }
    // Chunk sizes in hexadecimal, each chunk followed by CRLF.
    let mut rest = body;
    let mut out = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
        if n == 0 {
            break;
        }
        out.push_str(&after[..n]);
        rest = &after[n + 2..];
    }
    (status, out)
}

#[test]
fn a_finished_games_document_replays() {
    let data = tempfile::tempdir().expect("tempdir");
    let os = std::ffi::OsStr::new;
    let server = Server::start(&[
        os("--data"),
        data.path().as_os_str(),
        os("--coup-fourre-window"),
        os("0"),
    ]);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let table = runtime.block_on(async {
        tokio::time::timeout(
            Duration::from_secs(120),
            play_a_rated_game(server.addr, "bea"),
        )
        .await
        .expect("the game ends within 2 minutes")
    });
    // The game is over once its result is written, a moment after the
    // last update.
    let end = std::time::Instant::now() + Duration::from_secs(20);
    let document = loop {
        let (status, body) = http_get(server.addr, &format!("/api/games/{table}"));
        if status == 200 {
            break body;
        }
        assert!(std::time::Instant::now() < end, "{status}: {body}");
        std::thread::sleep(Duration::from_millis(100));
    };
    let file = data.path().join(format!("game-{table}.json"));
    std::fs::write(&file, &document).expect("write");
    let out = Command::new(BIN)
        .args(["replay", "--plain", "--all"])
        .arg(&file)
        .env("GAMES_DATA_DIR", data.path())
        .output()
        .expect("run mille replay");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.starts_with(&format!(
            "Replay of game-{table}.json: bsd rules, 2 players (bea, "
        )),
        "{}",
        &text[..300.min(text.len())]
    );
    assert!(text.contains("\nbea's hand: "), "every hand is shown");
    assert!(
        text.trim_end()
            .lines()
            .last()
            .is_some_and(|l| l.starts_with("Game over: ")),
        "{}",
        &text[text.len().saturating_sub(500)..]
    );
}
