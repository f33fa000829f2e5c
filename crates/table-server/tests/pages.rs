//! The site's JSON over a real socket: a finished game's record and its
//! replay as each viewer saw it, the ladder and a player's page after a
//! rated game, private tables' games hidden without their code, and every
//! kind of wrong address answered 400 or 404 with a sentence.

mod common;

use common::{Client, create, get, legal};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::Duration;
use table_protocol::{ClientMessage, ServerMessage};

fn config(dir: &std::path::Path) -> table_server::Config {
    let mut c = common::config(dir);
    c.limits.messages_per_second = 1000;
    c.limits.burst = 2000;
    c
}

/// Plays the seat of `client` at `table` to the game's end, `pick`
/// choosing among the legal actions; answers how many moves it made.
async fn play_out(client: &mut Client, table: u64, pick: fn(&[Value], &Value) -> Value) -> usize {
    let mut id = 0;
    let mut moved_at = u64::MAX;
    loop {
        let (observation, seq) = client
            .until(|m| match m {
                ServerMessage::Joined {
                    observation, seq, ..
                }
                | ServerMessage::Update {
                    observation, seq, ..
                } => Some((observation.clone(), *seq)),
                ServerMessage::Error(e) => panic!("refused: {e:?}"),
                _ => None,
            })
            .await;
        let over = observation["winner"].is_number()
            || observation["status"]["phase"] == json!("game_over");
        if over {
            return id as usize;
        }
        let legal = legal(&observation);
        if legal.is_empty() || seq == moved_at {
            continue;
        }
        moved_at = seq;
        id += 1;
        assert!(id < 5000, "the game ends");
        let action = pick(&legal, &observation);
        client
            .send(&ClientMessage::Move { table, id, action })
            .await;
    }
}

/// Cubes: roll until 300 are banked, then hold.
fn cubes_pick(legal: &[Value], observation: &Value) -> Value {
    let hold = observation["hold_value"].as_u64().unwrap_or(0) >= 300;
    legal
        .iter()
        .find(|a| (*a == "Hold") == hold)
        .unwrap_or(&legal[0])
        .clone()
}

/// Mille: any card played rather than discarded, a trip ended at once.
fn mille_pick(legal: &[Value], _: &Value) -> Value {
    let text = |a: &Value| a.as_str().unwrap_or("").to_string();
    legal
        .iter()
        .find(|a| text(a) == "end_trip")
        .or_else(|| legal.iter().find(|a| text(a).starts_with("play ")))
        .unwrap_or(&legal[0])
        .clone()
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

/// Waits until the game of `table` is over and recorded; answers its
/// document.
async fn finished(addr: SocketAddr, table: u64, query: &str) -> Value {
    for _ in 0..100 {
        let (status, doc) = get_json(addr, &format!("/api/games/{table}{query}")).await;
        if status == 200 {
            return doc;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("table {table}'s game was never recorded");
}

async fn refused(addr: SocketAddr, path: &str, want: u16) -> String {
    let (status, doc) = get_json(addr, path).await;
    assert_eq!(status, want, "{path}: {doc}");
    let why = doc["error"].as_str().unwrap_or_default().to_string();
    assert!(!why.is_empty(), "{path}: a sentence says why: {doc}");
    why
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_game_is_replayed_and_moves_the_ladder_and_the_players_page() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(config(dir.path()))
        .await
        .expect("start");
    let addr = server.addr;
    let mut ann = Client::open(addr).await;
    ann.hello("ann", None).await;
    let table = ann
        .open_table(create(
            "cubes",
            json!({"game": "blitz"}),
            json!([{"kind": "human"}, {"kind": "computer", "level": "steady"}]),
            Some(0),
        ))
        .await;
    // A game still being played has no page yet, and says so.
    let why = refused(addr, &format!("/api/games/{table}"), 404).await;
    assert!(why.contains("not over"), "{why}");
    let moved = play_out(&mut ann, table, cubes_pick).await;
    assert!(moved > 0);

    let game = finished(addr, table, "").await;
    assert_eq!(game["id"], json!(table));
    assert_eq!(game["game"], json!("cubes"));
    assert_eq!(game["outcome"], json!("finished"));
    assert_eq!(game["rated"], json!(true));
    assert_eq!(game["private"], json!(false));
    let players = game["players"].as_array().expect("players");
    assert_eq!(players.len(), 2);
    assert_eq!(players[0]["name"], json!("ann"));
    assert_eq!(players[1]["computer"], json!(true));
    assert_eq!(
        players.iter().filter(|p| p["won"] == json!(true)).count(),
        1,
        "{game}"
    );
    assert_eq!(game["stand_in"], json!([]));
    // The record is the engine's own, and replays to the same end.
    let record: cubes_engine::GameRecord =
        serde_json::from_value(game["record"].clone()).expect("a cubes GameRecord");
    assert_eq!(record.players, 2);
    let end = record.replay().expect("the record replays");
    let winner = players.iter().position(|p| p["won"] == json!(true));
    assert_eq!(end.winner(), winner);

    // The views: the start, then one step per public move, covering the
    // whole log in order; the last shows the winner.
    let (status, views) = get_json(addr, &format!("/api/games/{table}/views")).await;
    assert_eq!(status, 200, "{views}");
    assert_eq!(views["viewer"], json!("spectator"));
    let steps = views["steps"].as_array().expect("steps");
    assert!(steps.len() > 2, "{} steps", steps.len());
    let mut covered = 0;
    for (k, step) in steps.iter().enumerate() {
        assert_eq!(step["seq"], json!(k));
        assert_eq!(step["moves"][0], json!(covered), "step {k}");
        covered = step["moves"][1].as_u64().expect("moves") as usize;
        assert!(step["observation"]["players"].is_array(), "step {k}");
    }
    assert_eq!(covered, record.actions.len());
    let last = &steps[steps.len() - 1]["observation"];
    assert_eq!(last["winner"].as_u64().map(|w| w as usize), winner);
    let (status, seat) = get_json(addr, &format!("/api/games/{table}/views?seat=1")).await;
    assert_eq!(status, 200);
    assert_eq!(seat["viewer"], json!({"seat": 1}));
    assert_eq!(seat["steps"].as_array().map(Vec::len), Some(steps.len()));
    // Asked again: the same answer (from the cache).
    let (_, again) = get_json(addr, &format!("/api/games/{table}/views")).await;
    assert_eq!(again, views);

    // The ladder of cubes blitz: both players, best first.
    let (status, ladder) = get_json(addr, "/api/ladder?game=cubes&rules=blitz").await;
    assert_eq!(status, 200, "{ladder}");
    let lines = ladder.as_array().expect("an array");
    let ann_line = lines
        .iter()
        .find(|l| l["name"] == json!("ann"))
        .unwrap_or_else(|| panic!("ann is on the ladder: {ladder}"));
    assert_eq!(ann_line["games"], json!(1));
    assert_eq!(ann_line["computer"], json!(false));
    assert_eq!(ann_line["provisional"], json!(true));
    for key in ["rating", "deviation", "wins", "last_played"] {
        assert!(ann_line[key].is_i64(), "{key}: {ann_line}");
    }
    let ratings: Vec<i64> = lines.iter().filter_map(|l| l["rating"].as_i64()).collect();
    assert!(ratings.windows(2).all(|w| w[0] >= w[1]), "{ratings:?}");
    let (_, by_id) = get_json(addr, "/api/ladder?category=cubes-blitz").await;
    assert_eq!(by_id, ladder);
    let (_, other) = get_json(addr, "/api/ladder?game=mille&rules=classic&players=4").await;
    assert_eq!(other, json!([]));

    // ann's page: the rating with its history, the game with a link.
    let (status, page) = get_json(addr, "/api/players/ann").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["name"], json!("ann"));
    let rating = &page["ratings"][0];
    assert_eq!(rating["category"], json!("cubes-blitz"));
    assert_eq!(rating["title"], json!("Cubes, blitz"));
    assert_eq!(rating["rating"], ann_line["rating"]);
    assert_eq!(rating["history"].as_array().map(Vec::len), Some(1));
    assert_eq!(rating["history"][0]["table"], json!(table));
    let listed = &page["games"][0];
    assert_eq!(listed["table"], json!(table));
    assert_eq!(listed["url"], json!(format!("/games/{table}")));
    let result = if winner == Some(0) { "won" } else { "lost" };
    assert_eq!(listed["result"], json!(result));
    assert_eq!(listed["seats"].as_array().map(Vec::len), Some(2));
    // The computer has a page too, under its rating name.
    let computer = players[1]["name"].as_str().expect("name").to_string();
    let (status, page) = get_json(
        addr,
        &format!("/api/players/{}", computer.replace(' ', "%20")),
    )
    .await;
    assert_eq!(status, 200, "{computer}: {page}");

    // The HTML pages.
    for path in ["/ladder", "/players/ann", &format!("/games/{table}")] {
        let (status, body) = get(addr, path).await;
        assert_eq!(status, 200, "{path}");
        assert!(body.contains("site.js"), "{path}: {body}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_addresses_are_answered_with_a_reason_never_a_panic() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(config(dir.path()))
        .await
        .expect("start");
    let addr = server.addr;
    for (path, want) in [
        ("/api/games/abc", 400),
        ("/api/games/-1", 400),
        ("/api/games/99999999999999999999999", 400),
        ("/api/games/12", 404),
        ("/api/games/12/views", 404),
        ("/api/games/12/views?seat=x", 400),
        ("/api/games/12/views?seat=-1", 400),
        ("/api/games/12?foo=1", 400),
        ("/api/games/12?code=a&code=b", 400),
        ("/api/players/nobody", 404),
        ("/api/players/a%2Fb", 400),
        ("/api/players/%3Cscript%3E", 400),
        ("/api/players/%FF%FE", 400),
        (
            "/api/players/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            400,
        ),
        ("/api/players/ann?x=1", 400),
        ("/api/ladder?game=chess", 400),
        ("/api/ladder?game=mille&rules=poker", 400),
        ("/api/ladder?game=mille&rules=classic&players=abc", 400),
        ("/api/ladder?game=mille&rules=classic&players=5", 400),
        ("/api/ladder?category=mille-bsd&game=cubes", 400),
        ("/api/ladder?category=go", 400),
        ("/api/ladder?page=2", 400),
        ("/api/ladder?game=%ZZ", 400),
    ] {
        let why = refused(addr, path, want).await;
        assert!(why.len() > 10, "{path}: {why}");
    }
    // Nobody rated yet: an empty ladder, not an error.
    let (status, ladder) = get_json(addr, "/api/ladder").await;
    assert_eq!((status, ladder), (200, json!([])));
    // The pages come even for a wrong address (they say what is wrong),
    // with the status of their data.
    assert_eq!(get(addr, "/games/abc").await.0, 400);
    assert_eq!(get(addr, "/players/a%2Fb").await.0, 400);
    assert_eq!(get(addr, "/games/12").await.0, 200);
    // The server still answers.
    assert_eq!(common::health(addr).await["status"], json!("ok"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_tables_game_is_shown_with_its_code_only_and_each_seat_sees_its_hand() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(config(dir.path()))
        .await
        .expect("start");
    let addr = server.addr;
    let mut ann = Client::open(addr).await;
    ann.hello("ann", None).await;
    let mut create = create(
        "mille",
        Value::Null,
        json!([{"kind": "human"}, {"kind": "computer", "level": "classic"}]),
        Some(0),
    );
    if let ClientMessage::Create(c) = &mut create {
        c.private = true;
    }
    ann.send(&create).await;
    let (table, code) = ann
        .until(|m| match m {
            ServerMessage::Created { table, code } => Some((table.id, code.clone())),
            _ => None,
        })
        .await;
    let code = code.expect("a private table's code");
    // While it is played, a stranger is not even told that it exists.
    let why = refused(addr, &format!("/api/games/{table}"), 404).await;
    assert_eq!(
        why,
        refused(addr, "/api/games/999999", 404)
            .await
            .replace("999999", &table.to_string())
    );
    play_out(&mut ann, table, mille_pick).await;
    let with_code = format!("?code={code}");
    let game = finished(addr, table, &with_code).await;
    assert_eq!(game["private"], json!(true));
    let record: mille_engine::GameRecord =
        serde_json::from_value(game["record"].clone()).expect("a mille GameRecord");
    record.replay().expect("the record replays");
    for path in [
        format!("/api/games/{table}"),
        format!("/api/games/{table}?code=wrong"),
        format!("/api/games/{table}/views"),
        format!("/api/games/{table}/views?seat=0"),
    ] {
        let why = refused(addr, &path, 404).await;
        assert!(!why.contains(&code), "{why}");
    }
    // ann's page leaves the private game out.
    let (_, page) = get_json(addr, "/api/players/ann").await;
    assert!(
        page["games"]
            .as_array()
            .is_some_and(|g| g.iter().all(|g| g["table"] != json!(table))),
        "{page}"
    );
    // A spectator never sees a hand; seat 0 sees its own; both see the
    // same moments.
    let (status, spectator) = get_json(addr, &format!("/api/games/{table}/views{with_code}")).await;
    assert_eq!(status, 200, "{spectator}");
    let (status, seat) =
        get_json(addr, &format!("/api/games/{table}/views{with_code}&seat=0")).await;
    assert_eq!(status, 200, "{seat}");
    let (s, o) = (
        spectator["steps"].as_array().expect("steps"),
        seat["steps"].as_array().expect("steps"),
    );
    assert_eq!(s.len(), o.len());
    assert!(s.iter().all(|st| st["observation"]["hand"] == json!([])));
    assert!(o.iter().skip(1).any(|st| {
        st["observation"]["hand"]
            .as_array()
            .is_some_and(|h| !h.is_empty())
    }));
    // Every hand of the game has its first step.
    let hands: std::collections::BTreeSet<u64> = s
        .iter()
        .filter_map(|st| st["observation"]["hand_number"].as_u64())
        .collect();
    assert!(!hands.is_empty());
    let (status, _) = get_json(addr, &format!("/api/games/{table}/views{with_code}&seat=2")).await;
    assert_eq!(status, 400);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stand_ins_moves_and_the_one_who_left_are_marked() {
    let dir = tempfile::tempdir().expect("dir");
    let mut c = config(dir.path());
    c.away = Duration::from_millis(300);
    let server = table_server::start(c).await.expect("start");
    let addr = server.addr;
    let mut ann = Client::open(addr).await;
    ann.hello("ann", None).await;
    let mut bob = Client::open(addr).await;
    bob.hello("bob", None).await;
    let table = ann
        .open_table(create(
            "cubes",
            Value::Null,
            json!([{"kind": "human"}, {"kind": "human"}]),
            Some(0),
        ))
        .await;
    bob.send(&ClientMessage::Join {
        table,
        seat: Some(1),
        code: None,
        since: None,
    })
    .await;
    // ann leaves at once: a computer plays for her, bob to the end.
    drop(ann);
    play_out(&mut bob, table, cubes_pick).await;
    let game = finished(addr, table, "").await;
    let players = game["players"].as_array().expect("players");
    assert_eq!(players[0]["name"], json!("ann"));
    assert_eq!(players[0]["abandoned"], json!(true), "{game}");
    assert_eq!(players[1]["abandoned"], json!(false), "{game}");
    let stood_in = players[0]["stand_in_moves"].as_u64().expect("a count");
    assert!(stood_in > 0, "{game}");
    assert_eq!(players[1]["stand_in_moves"], json!(0));
    let marked = game["stand_in"].as_array().expect("stand_in");
    assert_eq!(marked.len() as u64, stood_in);
    // The replay marks the steps the stand-in made, every one of them
    // ann's seat's.
    let (_, views) = get_json(addr, &format!("/api/games/{table}/views")).await;
    let steps = views["steps"].as_array().expect("steps");
    let by_stand_in: Vec<&Value> = steps
        .iter()
        .filter(|s| s["stand_in"] == json!(true))
        .collect();
    assert!(!by_stand_in.is_empty());
    assert!(
        by_stand_in.iter().all(|s| s["seat"] == json!(0)),
        "{by_stand_in:?}"
    );
    // Her page says she abandoned it.
    let (_, page) = get_json(addr, "/api/players/ann").await;
    assert_eq!(page["games"][0]["table"], json!(table));
    assert_eq!(page["games"][0]["result"], json!("abandoned"));
    server.stop().await;
}
