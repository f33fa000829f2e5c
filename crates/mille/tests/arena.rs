//! The arena end to end, on the real programs: `mille serve --arena
//! classic --arena-rounds 1` with bots connected over the network (`mille
//! bot --connect` at two built-in levels, the example Python bot, and raw
//! WebSocket bots written here). A round is played by every pair, twice on
//! one deal with the seats swapped, and the standings at `/api/arena` are
//! what the games' own results say; a bot that sends an illegal move loses
//! the game, and the game's page says why.

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashSet};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

mod server_support;
use server_support::{Running, Server};

/// How long a whole round may take on a loaded machine.
const ROUND: Duration = Duration::from_secs(120);

/// An arena server: classic rules, one round, a short coup-fourré window
/// (a game between fast bots is mostly that pause otherwise).
fn arena(data: &std::path::Path, extra: &[&str]) -> Server {
    let mut args: Vec<&std::ffi::OsStr> = [
        "--arena",
        "classic",
        "--arena-rounds",
        "1",
        "--coup-fourre-window",
        "30",
        "--data",
    ]
    .iter()
    .map(std::ffi::OsStr::new)
    .collect();
    args.push(data.as_os_str());
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    Server::start(&args)
}

/// `GET path` (HTTP/1.0, so the body is never chunked): the status and
/// the body.
async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut tcp = TcpStream::connect(addr).await.expect("connect");
    let request = format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n");
    tcp.write_all(request.as_bytes()).await.expect("write");
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), tcp.read_to_end(&mut answer))
        .await
        .expect("an answer within 20 s")
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

/// `GET path` answered 200 with JSON.
async fn json_at(addr: SocketAddr, path: &str) -> Value {
    let (status, body) = get(addr, path).await;
    assert_eq!(status, 200, "GET {path}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {path}: {e}: {body}"))
}

/// What a raw bot does when it is to act.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Manner {
    /// Plays its first legal action.
    Legal,
    /// Sends a well-formed action that is not legal (the discard of a
    /// card it does not hold, or any discard when it must draw) at its
    /// first turn.
    Illegal,
}

/// What a raw bot answers an observation at `table` with: `ready`
/// between hands, a move when it has legal ones (the first, or one that
/// is not legal), else nothing.
fn act(manner: Manner, table: u64, obs: &Value, id: &mut u64) -> Option<Value> {
    if obs["status"]["phase"] == "hand_over" {
        return Some(json!({"type": "ready", "table": table}));
    }
    let legal = obs["legal"].as_array().cloned().unwrap_or_default();
    let first = legal.first()?.clone();
    let action = match manner {
        Manner::Legal => first,
        Manner::Illegal => [
            "discard 200",
            "discard 100",
            "discard 75",
            "discard 50",
            "discard 25",
            "discard stop",
            "discard go",
            "discard accident",
            "discard right_of_way",
        ]
        .into_iter()
        .map(Value::from)
        .find(|a| !legal.contains(a))?,
    };
    *id += 1;
    Some(json!({"type": "move", "table": table, "id": *id, "action": action}))
}

/// A bot written here, over a bare WebSocket: says hello as an arena
/// bot, accepts every invitation, plays as `manner` says and is ready
/// between hands. Answers the tables it was invited to.
fn raw_bot(
    addr: SocketAddr,
    name: &str,
    manner: Manner,
) -> (Arc<Mutex<Vec<u64>>>, tokio::task::JoinHandle<()>) {
    let invited = Arc::new(Mutex::new(Vec::new()));
    let tables = Arc::clone(&invited);
    let name = name.to_string();
    let task = tokio::spawn(async move {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
            .await
            .expect("connect");
        let (mut tx, mut rx) = ws.split();
        let hello = json!({"type": "hello", "version": table_protocol::VERSION, "name": name,
            "client": "arena test", "bot": {"owner": "tester", "description": "a test bot", "arena": true}});
        tx.send(Message::Text(hello.to_string().into()))
            .await
            .expect("hello");
        let mut id = 0u64;
        // The sequence number each table was last moved at (an older
        // observation is not acted on again), and its latest observation.
        let mut moved: BTreeMap<u64, u64> = BTreeMap::new();
        let mut latest: BTreeMap<u64, Value> = BTreeMap::new();
        while let Some(Ok(frame)) = rx.next().await {
            let Message::Text(text) = frame else { continue };
            let Ok(msg) = serde_json::from_str::<Value>(text.as_str()) else {
                continue;
            };
            if std::env::var_os("ARENA_DEBUG").is_some() {
                eprintln!("{name} << {}", &text.as_str()[..text.len().min(400)]);
            }
            let table = msg["table"].as_u64();
            let reply = match (msg["type"].as_str(), table) {
                (Some("invited"), _) => {
                    let table = msg["table"]["id"].as_u64().expect("a table");
                    tables.lock().expect("tables").push(table);
                    Some(json!({"type": "accept", "table": table}))
                }
                (Some("joined" | "update"), Some(table)) => {
                    let seq = msg["seq"].as_u64().unwrap_or(0);
                    latest.insert(table, msg["observation"].clone());
                    if moved.get(&table).is_none_or(|m| seq > *m) {
                        let reply = act(manner, table, &msg["observation"], &mut id);
                        if reply.is_some() {
                            moved.insert(table, seq);
                        }
                        reply
                    } else {
                        None
                    }
                }
                // A move refused for the moment (the table still waits for
                // its other seat): tried again on what was seen last.
                (Some("error"), Some(table)) if msg["code"] != "game_over" => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    latest
                        .get(&table)
                        .and_then(|obs| act(manner, table, obs, &mut id))
                }
                _ => None,
            };
            if let Some(r) = reply
                && tx.send(Message::Text(r.to_string().into())).await.is_err()
            {
                return;
            }
        }
    });
    (invited, task)
}

/// `mille bot --connect` at a built-in level, in the arena.
fn level_bot(addr: SocketAddr, name: &str, level: &str, data: &std::path::Path) -> Running {
    let child = Command::new(env!("CARGO_BIN_EXE_mille"))
        .args([
            "bot",
            "--connect",
            &addr.to_string(),
            "--name",
            name,
            "--level",
            level,
        ])
        .args(["--owner", "tester", "--arena", "--token-file"])
        .arg(data.join(format!("{name}.token")))
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("mille bot starts");
    Running(child)
}

/// The example bot, `docs/examples/mille_bot.py`, in the arena. Python
/// and its `websockets` must be there: the test fails saying how to get
/// them, never passes without them.
fn example_bot(addr: SocketAddr, name: &str, dir: &std::path::Path) -> Running {
    server_support::python_with_websockets();
    // It keeps its token in NAME.token where it runs.
    let child = server_support::example_bot_command(addr, name, dir)
        .args(["--owner", "tester", "--arena"])
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python3 starts");
    Running(child)
}

/// Waits until the bots `names` are connected, as a person asking the
/// server (`bots`) sees it.
async fn wait_for_bots(addr: SocketAddr, names: &[&str]) {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
        .await
        .expect("connect");
    let (mut tx, mut rx) = ws.split();
    let hello = json!({"type": "hello", "version": table_protocol::VERSION, "name": "Watcher"});
    tx.send(Message::Text(hello.to_string().into()))
        .await
        .expect("hello");
    let start = Instant::now();
    loop {
        tx.send(Message::Text(json!({"type": "bots"}).to_string().into()))
            .await
            .expect("bots");
        let bots = loop {
            let frame = tokio::time::timeout(Duration::from_secs(20), rx.next())
                .await
                .expect("an answer")
                .expect("open")
                .expect("a frame");
            let Message::Text(text) = frame else { continue };
            let msg: Value = serde_json::from_str(text.as_str()).expect("JSON");
            if msg["type"] == "bots" {
                break msg["bots"].as_array().cloned().unwrap_or_default();
            }
        };
        let there: HashSet<&str> = bots.iter().filter_map(|b| b["name"].as_str()).collect();
        if names.iter().all(|n| there.contains(n)) {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{names:?} did not connect: {bots:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until `/api/arena` lists `games` games; answers it.
async fn arena_with(addr: SocketAddr, games: usize) -> Value {
    let start = Instant::now();
    loop {
        let doc = json_at(addr, "/api/arena").await;
        let n = doc["games"].as_array().map_or(0, Vec::len);
        if n >= games {
            return doc;
        }
        assert!(
            start.elapsed() < ROUND,
            "the round's {games} games were not played in {ROUND:?}: {doc}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// A person's connection that asks for the public tables.
type Lister = (
    futures_util::stream::SplitSink<
        tokio_tungstenite::WebSocketStream<
            tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
        >,
        Message,
    >,
    futures_util::stream::SplitStream<
        tokio_tungstenite::WebSocketStream<
            tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
        >,
    >,
);

/// Signs in a person to ask for the tables with [`moves_made`].
async fn lister(addr: SocketAddr) -> Lister {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
        .await
        .expect("connect");
    let (mut tx, rx) = ws.split();
    let hello = json!({"type": "hello", "version": table_protocol::VERSION, "name": "Counter"});
    tx.send(Message::Text(hello.to_string().into()))
        .await
        .expect("hello");
    (tx, rx)
}

/// The public tables' sequence numbers (moves made), as `list` gives them.
async fn moves_made((tx, rx): &mut Lister) -> Vec<u64> {
    tx.send(Message::Text(json!({"type": "list"}).to_string().into()))
        .await
        .expect("list");
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(20), rx.next())
            .await
            .expect("an answer")
            .expect("open")
            .expect("a frame");
        let Message::Text(text) = frame else { continue };
        let msg: Value = serde_json::from_str(text.as_str()).expect("JSON");
        if msg["type"] == "tables" {
            let tables = msg["tables"].as_array().cloned().unwrap_or_default();
            return tables.iter().filter_map(|t| t["seq"].as_u64()).collect();
        }
    }
}

/// Both network bots keep the message rate the server announces: at 5
/// messages a second, a bot that sent its moves as fast as it made them
/// would have one dropped within a few turns, wait for its answer, and
/// lose on time (3 s here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_network_bots_keep_the_servers_message_rate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = arena(dir.path(), &["--rate", "5", "--bot-decision-seconds", "3"]);
    let addr = server.addr;
    let _example = example_bot(addr, "Pyro", dir.path());
    let _random = level_bot(addr, "Randy", "random", dir.path());
    wait_for_bots(addr, &["Pyro", "Randy"]).await;
    let mut counter = lister(addr).await;
    let start = Instant::now();
    while moves_made(&mut counter).await.iter().all(|&seq| seq == 0) {
        assert!(start.elapsed() < ROUND, "no arena game started");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    tokio::time::sleep(Duration::from_secs(15)).await;
    let doc = json_at(addr, "/api/arena").await;
    let games = doc["games"].as_array().cloned().unwrap_or_default();
    assert!(
        games.iter().all(|g| g["forfeit"].is_null()),
        "no game was lost by forfeit: {doc}"
    );
    // Still playing (or done): at 5 messages a second each, well over 30
    // moves in 15 s.
    let made: u64 = moves_made(&mut counter).await.iter().sum();
    assert!(
        !games.is_empty() || made >= 30,
        "the bots played on: {made} moves"
    );
}

/// A game of a pair: its deal, and its bots in seat order.
type Played = (u64, Vec<String>);

/// One bot's line counted from the games' pages.
#[derive(Debug, Default, PartialEq, Eq)]
struct Counted {
    games: u64,
    wins: u64,
    losses: u64,
    forfeits: u64,
    points: i64,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arena_of_three_bots_plays_a_round_and_its_standings_are_the_games_results() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = arena(dir.path(), &[]);
    let addr = server.addr;
    // The example first, the slowest to start; the arena's round waits
    // for arrivals to settle, so the two others, started together, enter
    // it too.
    let _example = example_bot(addr, "Pyro", dir.path());
    wait_for_bots(addr, &["Pyro"]).await;
    let _random = level_bot(addr, "Randy", "random", dir.path());
    let _classic = level_bot(addr, "Classy", "classic", dir.path());
    // Three bots: three pairs, two games each.
    let doc = arena_with(addr, 6).await;
    assert_eq!(doc["arena"], "mille-classic");
    assert_eq!(doc["rounds"], 1);
    let games = doc["games"].as_array().expect("games").clone();
    assert_eq!(games.len(), 6, "one round only: {doc}");
    let mut counted: BTreeMap<String, Counted> = BTreeMap::new();
    let mut deals: BTreeMap<(String, String), Vec<Played>> = BTreeMap::new();
    for g in &games {
        assert_eq!(g["round"], 1);
        let id = g["table"].as_u64().expect("a table");
        let page = json_at(addr, &format!("/api/games/{id}")).await;
        assert_eq!(page["rated"], true, "arena games are rated: {page}");
        let players = page["players"].as_array().expect("players");
        let names: Vec<String> = players
            .iter()
            .map(|p| p["name"].as_str().expect("a name").to_string())
            .collect();
        let forfeit_seat = page["forfeit"]["seat"].as_u64();
        for (seat, p) in players.iter().enumerate() {
            let c = counted.entry(names[seat].clone()).or_default();
            c.games += 1;
            if p["won"] == true {
                c.wins += 1;
            } else {
                c.losses += 1;
            }
            if forfeit_seat == Some(seat as u64) {
                c.forfeits += 1;
            }
            c.points += p["score"].as_i64().expect("a score");
        }
        // /api/arena says what the game's page says.
        let listed: Vec<(String, i64, bool)> = g["seats"]
            .as_array()
            .expect("seats")
            .iter()
            .map(|s| {
                (
                    s["name"].as_str().unwrap_or("").to_string(),
                    s["score"].as_i64().unwrap_or(-1),
                    s["won"] == true,
                )
            })
            .collect();
        let paged: Vec<(String, i64, bool)> = players
            .iter()
            .map(|p| {
                (
                    p["name"].as_str().unwrap_or("").to_string(),
                    p["score"].as_i64().unwrap_or(-1),
                    p["won"] == true,
                )
            })
            .collect();
        assert_eq!(listed, paged, "table {id}");
        let mut pair = names.clone();
        pair.sort();
        deals
            .entry((pair[0].clone(), pair[1].clone()))
            .or_default()
            .push((page["record"]["seed"].as_u64().expect("a seed"), names));
    }
    // Every pair: two games on one deal, the seats swapped.
    assert_eq!(deals.len(), 3, "{deals:?}");
    for (pair, played) in &deals {
        assert_eq!(played.len(), 2, "{pair:?}: {played:?}");
        assert_eq!(played[0].0, played[1].0, "{pair:?} on one deal");
        let mut swapped = played[1].1.clone();
        swapped.reverse();
        assert_eq!(played[0].1, swapped, "{pair:?} with the seats swapped");
    }
    let names: HashSet<&str> = counted.keys().map(String::as_str).collect();
    assert_eq!(names, HashSet::from(["Randy", "Classy", "Pyro"]));
    let standings = doc["standings"].as_array().expect("standings");
    assert_eq!(standings.len(), 3);
    for s in standings {
        let name = s["name"].as_str().expect("a name");
        let c = &counted[name];
        let said = Counted {
            games: s["games"].as_u64().unwrap_or(0),
            wins: s["wins"].as_u64().unwrap_or(0),
            losses: s["losses"].as_u64().unwrap_or(0),
            forfeits: s["forfeits"].as_u64().unwrap_or(0),
            points: s["points"].as_i64().unwrap_or(0),
        };
        assert_eq!(&said, c, "{name}'s standing");
        assert_eq!(c.games, 4, "{name} plays its two pairs twice");
        // Each keeps the rules and the server's rate: a message over it is
        // dropped, and a bot waiting for the answer to a dropped move
        // loses on time.
        assert_eq!(c.forfeits, 0, "{name} lost no game by forfeit: {doc}");
        assert!(s["rating"]["rating"].is_i64(), "{name} is rated: {s}");
    }
    // Best first: most wins, then most points.
    let order: Vec<(u64, i64)> = standings
        .iter()
        .map(|s| {
            (
                s["wins"].as_u64().unwrap_or(0),
                s["points"].as_i64().unwrap_or(0),
            )
        })
        .collect();
    let mut sorted = order.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(order, sorted);
    // One round asked: no game of a second round starts.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let after = json_at(addr, "/api/arena").await;
    assert_eq!(after["games"].as_array().map_or(0, Vec::len), 6);
    let (status, page) = get(addr, "/arena").await;
    assert_eq!(status, 200, "{page}");
    // The page draws /api/arena's standings (the browser test reads it).
    assert!(page.contains("/api/arena"), "{page}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_that_sends_an_illegal_move_loses_the_game_and_the_reason_is_recorded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = arena(dir.path(), &[]);
    let addr = server.addr;
    let (_, honest) = raw_bot(addr, "Honest", Manner::Legal);
    let (tables, cheat) = raw_bot(addr, "Cheat", Manner::Illegal);
    // One pair: two games, and the cheat loses both.
    let doc = arena_with(addr, 2).await;
    let invited: HashSet<u64> = tables.lock().expect("tables").iter().copied().collect();
    for g in doc["games"].as_array().expect("games") {
        let id = g["table"].as_u64().expect("a table");
        assert!(invited.contains(&id), "the cheat was invited to table {id}");
        let page = json_at(addr, &format!("/api/games/{id}")).await;
        let players = page["players"].as_array().expect("players");
        let seat_of = |name: &str| {
            players
                .iter()
                .position(|p| p["name"] == name)
                .unwrap_or_else(|| panic!("{name} at table {id}: {page}"))
        };
        let (cheat_seat, honest_seat) = (seat_of("Cheat"), seat_of("Honest"));
        assert_eq!(page["forfeit"]["seat"], cheat_seat, "{page}");
        let reason = page["forfeit"]["reason"].as_str().unwrap_or("");
        assert!(reason.starts_with("sent an illegal move"), "{page}");
        assert_eq!(players[cheat_seat]["won"], false, "{page}");
        assert_eq!(players[honest_seat]["won"], true, "{page}");
        assert_eq!(
            g["forfeit"]["seat"], cheat_seat,
            "/api/arena says it too: {g}"
        );
    }
    let standings = doc["standings"].as_array().expect("standings");
    let cheat_line = standings
        .iter()
        .find(|s| s["name"] == "Cheat")
        .expect("the cheat's line");
    assert_eq!(cheat_line["forfeits"], 2, "{doc}");
    assert_eq!(cheat_line["wins"], 0, "{doc}");
    assert_eq!(standings[0]["name"], "Honest", "{doc}");
    honest.abort();
    cheat.abort();
}
