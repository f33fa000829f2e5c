//! The arena's rounds on a server run in the test (`Config.arena`), with
//! bots written here over bare WebSockets: a bot whose connection closes
//! during a game loses it by forfeit and its pair's other game is skipped,
//! the next round is played by whoever is there, and a restarted server
//! numbers its rounds on from the last one stored. (The real programs'
//! arena, with `mille bot --connect` and the example bot, is
//! `crates/mille/tests/arena.rs`.)

mod common;

use common::{Manner, Scripted};
use serde_json::json;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use table_server::ArenaConfig;
use table_server::arena::{Document, document};

/// How long a round between two quick bots may take on a loaded machine.
const ROUND: Duration = Duration::from_secs(60);

/// A server running an arena of classic rules for `rounds` rounds.
async fn arena(dir: &std::path::Path, rounds: u32) -> table_server::Running {
    // The bots play as fast as the table answers.
    let mut config = common::fast_config(dir, Duration::from_secs(10));
    config.arena = Some(ArenaConfig {
        rules: "classic".into(),
        rounds,
    });
    config.coup_fourre_window = Duration::from_millis(20);
    table_server::start(config)
        .await
        .expect("the server starts")
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
    common::scripted(
        addr,
        Scripted {
            bot: Some(json!({"owner": "tester", "description": "a test bot", "arena": true})),
            token: Some(token),
            ..Scripted::new(name, manner)
        },
    )
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
