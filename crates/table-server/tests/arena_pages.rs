//! The site's JSON about bots and the arena, over a real socket: a bot's
//! page says who runs it and what it is, a game a person played against
//! an invited bot marks the bot's seat, a server without an arena says so
//! (404 with a sentence), and an arena whose bot sends an illegal move
//! shows the forfeit with its reason on the game's page and in the
//! standings, each standing with its place and owner. (The arena's
//! rounds themselves are `tests/arena.rs`'s.)

mod common;

use common::{Manner, Scripted, get};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use table_server::ArenaConfig;
use tokio::sync::oneshot;

/// How long a game or a round between quick players may take on a loaded
/// machine.
const LONG: Duration = Duration::from_secs(90);

/// The players play as fast as the table answers.
fn config(dir: &std::path::Path) -> table_server::Config {
    common::fast_config(dir, Duration::from_secs(10))
}

/// `GET path` as JSON: the status and the document.
async fn get_json(addr: SocketAddr, path: &str) -> (u16, Value) {
    let (status, body) = get(addr, path).await;
    let start = body.find(['{', '[']).unwrap_or(0);
    let end = body.rfind(['}', ']']).map_or(body.len(), |e| e + 1);
    let value = serde_json::from_str(body.get(start..end).unwrap_or(""))
        .unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {body}"));
    (status, value)
}

/// A player over a bare WebSocket: a bot when `bot` is given (its hello's
/// bot info), which accepts every invitation; after its welcome it sends
/// `create` if given, and tells the new table's number on `created`. It
/// plays every seat it is given as `manner` says, until the connection
/// closes or the task is dropped.
fn player(
    addr: SocketAddr,
    name: &'static str,
    bot: Option<Value>,
    manner: Manner,
    create: Option<(Value, oneshot::Sender<u64>)>,
) -> tokio::task::JoinHandle<()> {
    common::scripted(
        addr,
        Scripted {
            bot,
            create,
            ..Scripted::new(name, manner)
        },
    )
}

/// Waits until `path` answers 200; answers its document.
async fn when_there(addr: SocketAddr, path: &str) -> Value {
    let start = Instant::now();
    loop {
        let (status, doc) = get_json(addr, path).await;
        if status == 200 {
            return doc;
        }
        assert!(start.elapsed() < LONG, "{path} never answered: {doc}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn bot_info(owner: &str, description: &str, arena: bool) -> Value {
    json!({"owner": owner, "description": description, "arena": arena})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bots_page_and_its_game_against_a_person_mark_it_and_no_arena_is_said() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(config(dir.path()))
        .await
        .expect("start");
    let addr = server.addr;

    // No arena here: the API says so in a sentence, the page is a 404,
    // and the list of arenas is empty.
    let (status, doc) = get_json(addr, "/api/arena").await;
    assert_eq!(status, 404, "{doc}");
    assert!(
        doc["error"]
            .as_str()
            .is_some_and(|e| e.contains("no arena")),
        "{doc}"
    );
    assert_eq!(get(addr, "/arena").await.0, 404);
    assert_eq!(get_json(addr, "/api/arenas").await, (200, json!([])));

    // A bot has a page from its first hello, before any game.
    let robo = player(
        addr,
        "Robo",
        Some(bot_info("alice", "plays its first legal move", false)),
        Manner::Plays,
        None,
    );
    let page = when_there(addr, "/api/players/Robo").await;
    assert_eq!(
        page["bot"],
        json!({"owner": "alice", "description": "plays its first legal move"})
    );
    assert_eq!(page["ratings"], json!([]));

    // ann invites Robo to a rated bsd game and both play it to its end.
    let (told, table) = oneshot::channel();
    let create = json!({"type": "create", "game": "mille", "setup": {"rules": "bsd", "players": 2},
        "seats": [{"kind": "human"}, {"kind": "bot", "name": "Robo"}], "sit": 0, "rated": true});
    let ann = player(addr, "ann", None, Manner::Plays, Some((create, told)));
    let table = tokio::time::timeout(LONG, table)
        .await
        .expect("the table opens")
        .expect("created");
    let game = when_there(addr, &format!("/api/games/{table}")).await;
    ann.abort();
    robo.abort();
    let bots: Vec<(Value, Value)> = game["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| (p["name"].clone(), p["bot"].clone()))
        .collect();
    assert_eq!(
        bots,
        vec![(json!("ann"), json!(false)), (json!("Robo"), json!(true))],
        "{game}"
    );
    assert_eq!(game["forfeit"], Value::Null);
    assert_eq!(game["arena"], Value::Null);

    // Robo's page: a bot's, with its rated game; ann's is a person's.
    let page = when_there(addr, "/api/players/Robo").await;
    assert_eq!(page["bot"]["owner"], "alice");
    assert_eq!(page["ratings"][0]["category"], "mille-bsd", "{page}");
    assert_eq!(page["games"][0]["table"], json!(table), "{page}");
    let page = when_there(addr, "/api/players/ann").await;
    assert_eq!(page["bot"], Value::Null, "{page}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arena_game_lost_by_an_illegal_move_shows_the_forfeit_and_the_standings() {
    let dir = tempfile::tempdir().expect("dir");
    let mut config = config(dir.path());
    config.arena = Some(ArenaConfig {
        rules: "bsd".into(),
        rounds: 1,
    });
    let server = table_server::start(config).await.expect("start");
    let addr = server.addr;
    assert_eq!(
        get_json(addr, "/api/arenas").await,
        (
            200,
            json!([{"arena": "mille-bsd", "title": "Mille Bornes, bsd", "url": "/arena"}])
        )
    );

    let ada = player(
        addr,
        "Ada",
        Some(bot_info("tess", "plays its first legal move", true)),
        Manner::Plays,
        None,
    );
    let bad = player(
        addr,
        "Bad",
        Some(bot_info("mallory", "cheats once", true)),
        Manner::Illegal,
        None,
    );
    // The round: two games on one deal, the seats swapped; Bad cheats at
    // its first decision and loses the first by forfeit.
    let start = Instant::now();
    let doc = loop {
        let doc = when_there(addr, "/api/arena").await;
        if doc["games"].as_array().is_some_and(|g| g.len() >= 2) {
            break doc;
        }
        assert!(start.elapsed() < LONG, "the round was not played: {doc}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    ada.abort();
    bad.abort();
    assert_eq!(doc["arena"], "mille-bsd");
    let standings = doc["standings"].as_array().expect("standings");
    assert_eq!(standings.len(), 2, "{doc}");
    let line = |name: &str| {
        standings
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("{name} is in the standings: {doc}"))
            .clone()
    };
    let (ada_line, bad_line) = (line("Ada"), line("Bad"));
    assert_eq!(bad_line["forfeits"], 1, "{doc}");
    assert_eq!(ada_line["owner"], "tess");
    assert_eq!(bad_line["owner"], "mallory");
    // Places follow the standings' order (a tie shares one).
    assert_eq!(standings[0]["place"], 1, "{doc}");
    let level = standings[0]["wins"] == standings[1]["wins"]
        && standings[0]["points"] == standings[1]["points"];
    assert_eq!(standings[1]["place"], if level { 1 } else { 2 }, "{doc}");

    // The forfeited game: its reason in the arena's list and on its page.
    let games = doc["games"].as_array().expect("games");
    let forfeited: Vec<&Value> = games.iter().filter(|g| !g["forfeit"].is_null()).collect();
    assert_eq!(forfeited.len(), 1, "{doc}");
    let g = forfeited[0];
    let table = g["table"].as_u64().expect("a table");
    assert_eq!(g["url"], format!("/games/{table}"));
    let seat = g["forfeit"]["seat"].as_u64().expect("a seat") as usize;
    assert_eq!(g["seats"][seat]["name"], "Bad", "{doc}");
    let (status, game) = get_json(addr, &format!("/api/games/{table}")).await;
    assert_eq!(status, 200, "{game}");
    assert_eq!(game["forfeit"]["name"], "Bad", "{game}");
    assert_eq!(game["forfeit"]["seat"], json!(seat));
    assert!(
        game["forfeit"]["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("sent an illegal move")),
        "{game}"
    );
    assert_eq!(game["arena"], json!({"arena": "mille-bsd", "round": 1}));
    assert!(
        game["players"]
            .as_array()
            .expect("players")
            .iter()
            .all(|p| p["bot"] == true),
        "{game}"
    );
    // The page itself is there.
    assert_eq!(get(addr, "/arena").await.0, 200);
    server.stop().await;
}

/// Both games of an arena pair are dealt from one seed: the first game's
/// record (its seed, every hand) would show a bot every card of the
/// second, so it is shown only once the second is over too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arena_games_record_waits_for_its_pairs_second_game() {
    let dir = tempfile::tempdir().expect("dir");
    let mut config = config(dir.path());
    config.arena = Some(ArenaConfig {
        rules: "bsd".into(),
        rounds: 1,
    });
    // The second game ends by the silent bot's forfeit, soon.
    config.decision_limit = Duration::from_secs(3);
    let server = table_server::start(config).await.expect("start");
    let addr = server.addr;
    let ada = player(
        addr,
        "Ada",
        Some(bot_info("tess", "plays its first legal move", true)),
        Manner::Plays,
        None,
    );
    let slow = player(
        addr,
        "Slow",
        Some(bot_info("tess", "plays one game", true)),
        Manner::FirstOnly,
        None,
    );
    let start = Instant::now();
    let first = loop {
        let doc = when_there(addr, "/api/arena").await;
        if let Some(g) = doc["games"].as_array().and_then(|g| g.first()) {
            break g["table"].as_u64().expect("a table");
        }
        assert!(start.elapsed() < LONG, "no game was played: {doc}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    for path in [
        format!("/api/games/{first}"),
        format!("/api/games/{first}/views?seat=0"),
        format!("/api/games/{first}/review?seat=0"),
    ] {
        let (status, body) = get_json(addr, &path).await;
        assert_eq!(
            status, 404,
            "{path} while the pair's second game is on: {body}"
        );
        assert!(
            body["error"]
                .as_str()
                .is_some_and(|e| e.contains("played again with the seats swapped")),
            "{body}"
        );
    }
    // The second game over (the silent bot's forfeit), the first is shown.
    let doc = loop {
        let doc = when_there(addr, "/api/arena").await;
        if doc["games"].as_array().is_some_and(|g| g.len() >= 2) {
            break doc;
        }
        assert!(start.elapsed() < LONG, "the second game did not end: {doc}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        doc["games"][0]["forfeit"]["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("took more than")),
        "{doc}"
    );
    let (status, body) = get_json(addr, &format!("/api/games/{first}")).await;
    assert_eq!(status, 200, "{body}");
    ada.abort();
    slow.abort();
    server.stop().await;
}
