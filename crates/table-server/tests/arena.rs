//! The arena's rounds on a server run in the test (`Config.arena`), with
//! bots written here over bare WebSockets: a bot whose connection closes
//! during a game loses it by forfeit and its pair's other game is skipped,
//! the next round is played by whoever is there, and a restarted server
//! numbers its rounds on from the last one stored. (The real programs'
//! arena, with `mille bot --connect` and the example bot, is
//! `crates/mille/tests/arena.rs`.)

mod common;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use table_server::ArenaConfig;
use table_server::arena::{Document, document};
use tokio_tungstenite::tungstenite::Message;

/// How long a round between two quick bots may take on a loaded machine.
const ROUND: Duration = Duration::from_secs(60);

/// A server running an arena of classic rules for `rounds` rounds.
async fn arena(dir: &std::path::Path, rounds: u32) -> table_server::Running {
    let mut config = common::config(dir);
    config.arena = Some(ArenaConfig {
        rules: "classic".into(),
        rounds,
    });
    config.coup_fourre_window = Duration::from_millis(20);
    config.decision_limit = Duration::from_secs(10);
    // The bots play as fast as the table answers.
    config.limits.messages_per_second = 1000;
    config.limits.burst = 2000;
    table_server::start(config)
        .await
        .expect("the server starts")
}

/// What a test bot does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Manner {
    /// Plays its first legal action, is ready between hands.
    Plays,
    /// Closes its connection when it is first to act.
    Leaves,
}

/// What a bot answers an observation at `table` with: `ready` between
/// hands, its first legal action when it has some, else nothing.
fn act(table: u64, obs: &Value, id: &mut u64) -> Option<Value> {
    if obs["status"]["phase"] == "hand_over" {
        return Some(json!({"type": "ready", "table": table}));
    }
    let action = obs["legal"].as_array()?.first()?.clone();
    *id += 1;
    Some(json!({"type": "move", "table": table, "id": *id, "action": action}))
}

/// A bot over a bare WebSocket, in the arena: accepts every invitation and
/// plays as `manner` says. Its token (from `welcome`) is kept in `token`,
/// and given back when it comes again.
fn bot(
    addr: SocketAddr,
    name: &'static str,
    manner: Manner,
    token: Arc<Mutex<Option<String>>>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
            .await
            .expect("connect");
        let (mut tx, mut rx) = ws.split();
        let known = token.lock().expect("token").clone();
        let hello = json!({"type": "hello", "version": table_protocol::VERSION, "name": name,
            "token": known, "client": "arena test",
            "bot": {"owner": "tester", "description": "a test bot", "arena": true}});
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
            let table = msg["table"].as_u64();
            let reply = match (msg["type"].as_str(), table) {
                (Some("welcome"), _) => {
                    *token.lock().expect("token") = msg["token"].as_str().map(String::from);
                    None
                }
                (Some("invited"), _) => {
                    Some(json!({"type": "accept", "table": msg["table"]["id"]}))
                }
                (Some("joined" | "update"), Some(table)) => {
                    let seq = msg["seq"].as_u64().unwrap_or(0);
                    let obs = &msg["observation"];
                    latest.insert(table, obs.clone());
                    let legal = obs["legal"].as_array().is_some_and(|l| !l.is_empty());
                    if manner == Manner::Leaves && legal {
                        let _ = tx.send(Message::Close(None)).await;
                        return;
                    }
                    if moved.get(&table).is_none_or(|m| seq > *m) {
                        let reply = act(table, obs, &mut id);
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
                    eprintln!("{name} was refused: {msg}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    latest.get(&table).and_then(|obs| act(table, obs, &mut id))
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

/// Waits until the arena has `games` finished games; answers its document.
async fn with_games(shared: &table_server::Shared, games: usize) -> Document {
    let start = Instant::now();
    loop {
        let doc = document(shared)
            .await
            .expect("the store answers")
            .expect("the server runs an arena");
        if doc.games.len() >= games {
            return doc;
        }
        assert!(
            start.elapsed() < ROUND,
            "{games} games were not played in {ROUND:?}: {doc:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A new token holder.
fn token() -> Arc<Mutex<Option<String>>> {
    Arc::new(Mutex::new(None))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_that_leaves_loses_by_forfeit_its_pairs_other_game_is_skipped_and_the_next_round_is_played()
 {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = arena(dir.path(), 2).await;
    let addr = server.addr;
    let (ada, bob) = (token(), token());
    let a = bot(addr, "Ada", Manner::Plays, Arc::clone(&ada));
    let b = bot(addr, "Bob", Manner::Leaves, Arc::clone(&bob));
    let first = with_games(&server.shared, 1).await;
    let game = &first.games[0];
    assert_eq!(game.round, 1);
    let bob_seat = game
        .seats
        .iter()
        .position(|s| s.name == "Bob")
        .expect("Bob played");
    let forfeit = game.forfeit.as_ref().expect("Bob forfeited");
    assert_eq!(forfeit.seat, bob_seat);
    assert_eq!(forfeit.reason, "its connection closed");
    assert!(game.seats[1 - bob_seat].won && !game.seats[bob_seat].won);
    let _ = b.await;
    // Bob stays away long enough for the arena to see it (it looks five
    // times a second), then comes back for the next round.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let b = bot(addr, "Bob", Manner::Plays, Arc::clone(&bob));
    let doc = with_games(&server.shared, 3).await;
    let rounds: Vec<u32> = doc.games.iter().map(|g| g.round).collect();
    // Newest first: round 2's two games, then round 1's one (its other
    // game, Bob away, was skipped).
    assert_eq!(rounds, [2, 2, 1], "{doc:?}");
    assert_eq!(doc.rounds, 2);
    let round2: Vec<[String; 2]> = doc.games[..2]
        .iter()
        .map(|g| [g.seats[0].name.clone(), g.seats[1].name.clone()])
        .collect();
    assert!(
        round2.contains(&["Ada".into(), "Bob".into()])
            && round2.contains(&["Bob".into(), "Ada".into()]),
        "the seats swapped: {round2:?}"
    );
    let bob_line = doc
        .standings
        .iter()
        .find(|s| s.name == "Bob")
        .expect("Bob's line");
    assert_eq!((bob_line.games, bob_line.forfeits), (3, 1), "{doc:?}");
    a.abort();
    b.abort();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_arena_numbers_its_rounds_on_from_the_last_one_stored() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (ada, bob) = (token(), token());
    let server = arena(dir.path(), 1).await;
    let addr = server.addr;
    let a = bot(addr, "Ada", Manner::Plays, Arc::clone(&ada));
    let b = bot(addr, "Bob", Manner::Plays, Arc::clone(&bob));
    let first = with_games(&server.shared, 2).await;
    assert!(first.games.iter().all(|g| g.round == 1), "{first:?}");
    a.abort();
    b.abort();
    server.stop().await;
    // Two rounds in all: the restarted server plays the second only.
    let server = arena(dir.path(), 2).await;
    let addr = server.addr;
    let a = bot(addr, "Ada", Manner::Plays, Arc::clone(&ada));
    let b = bot(addr, "Bob", Manner::Plays, Arc::clone(&bob));
    let doc = with_games(&server.shared, 4).await;
    let rounds: Vec<u32> = doc.games.iter().map(|g| g.round).collect();
    assert_eq!(rounds, [2, 2, 1, 1], "{doc:?}");
    let line = &doc.standings[0];
    assert_eq!(line.games, 4);
    assert!(line.rating.is_some(), "arena games are rated: {doc:?}");
    a.abort();
    b.abort();
    server.stop().await;
}
