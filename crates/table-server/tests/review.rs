//! After-game reviews over a real socket: a finished game's review is
//! queued, made, kept in the database and served from there (by a server
//! started again on the same database, which makes none itself), the
//! line's bound answered 503, and the pages' access rules (a private
//! table's game only with its code, a game not over has none).

mod common;

use common::{Client, create, get, legal};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::Duration;
use table_protocol::{ClientMessage, ServerMessage};

/// A server whose mille reviews search very little: the tests are about
/// the line and the storage, not the judge.
fn config(dir: &std::path::Path) -> table_server::Config {
    let mut c = common::config(dir);
    c.limits.messages_per_second = 1000;
    c.limits.burst = 2000;
    c.review_iterations = 40;
    c
}

/// Plays the seat of `client` at `table` to the game's end.
async fn play_out(client: &mut Client, table: u64, pick: fn(&[Value], &Value) -> Value) {
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
        if observation["winner"].is_number() || observation["status"]["phase"] == json!("game_over")
        {
            return;
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

async fn get_json(addr: SocketAddr, path: &str) -> (u16, Value) {
    let (status, body) = get(addr, path).await;
    let start = body.find(['{', '[']).unwrap_or(0);
    let end = body.rfind(['}', ']']).map_or(body.len(), |e| e + 1);
    let value = serde_json::from_str(body.get(start..end).unwrap_or(""))
        .unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {body}"));
    (status, value)
}

/// Waits until the game of `table` is recorded as over.
async fn recorded(addr: SocketAddr, table: u64, query: &str) {
    for _ in 0..200 {
        if get(addr, &format!("/api/games/{table}{query}")).await.0 == 200 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
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

/// Asks for a review until it is made: answers every status seen and the
/// review.
async fn reviewed(addr: SocketAddr, path: &str) -> (Vec<(u16, String)>, Value) {
    let mut seen = Vec::new();
    for _ in 0..1200 {
        let (status, doc) = get_json(addr, path).await;
        match status {
            200 => return (seen, doc),
            202 => {
                let s = doc["status"].as_str().unwrap_or_default().to_string();
                assert!(s == "queued" || s == "running", "{doc}");
                assert!(doc["position"].is_u64(), "{doc}");
                seen.push((status, s));
            }
            other => panic!("{path}: {other} {doc}"),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{path}: the review was never made");
}

/// A cubes game of ann against a computer, played out: its table.
async fn cubes_game(addr: SocketAddr, private: bool) -> (u64, Option<String>) {
    let mut ann = Client::open(addr).await;
    ann.hello("ann", None).await;
    let mut message = create(
        "cubes",
        json!({"game": "blitz"}),
        json!([{"kind": "human"}, {"kind": "computer", "level": "steady"}]),
        Some(0),
    );
    if let ClientMessage::Create(c) = &mut message {
        c.private = private;
    }
    ann.send(&message).await;
    let (table, code) = ann
        .until(|m| match m {
            ServerMessage::Created { table, code } => Some((table.id, code.clone())),
            _ => None,
        })
        .await;
    play_out(&mut ann, table, cubes_pick).await;
    let q = code
        .as_ref()
        .map_or(String::new(), |c| format!("?code={c}"));
    recorded(addr, table, &q).await;
    (table, code)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_is_queued_made_kept_and_served_from_the_database_after_a_restart() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(config(dir.path()))
        .await
        .expect("start");
    let addr = server.addr;
    let (table, _) = cubes_game(addr, false).await;
    let path = format!("/api/games/{table}/review?seat=1");
    let (seen, doc) = reviewed(addr, &path).await;
    assert!(
        !seen.is_empty(),
        "the first answer is 202: it is made in the background"
    );
    assert_eq!(doc["id"], json!(table));
    assert_eq!(doc["game"], json!("cubes"));
    assert_eq!(doc["seat"], json!(1));
    assert_eq!(doc["status"], json!("done"));
    let decisions = doc["decisions"].as_array().expect("decisions");
    assert!(!decisions.is_empty(), "{doc}");
    for d in decisions {
        assert!(
            d["move"].is_u64() && d["played"].is_string() && d["best"].is_string(),
            "{d}"
        );
        assert!(d["loss"].as_f64().is_some_and(|l| l >= 0.0), "{d}");
        let marks = ["best", "good", "inaccuracy", "mistake", "blunder"];
        assert!(marks.contains(&d["mark"].as_str().unwrap_or("")), "{d}");
    }
    // The engine's own review is there too, decision for decision.
    assert_eq!(
        doc["review"]["decisions"].as_array().map(Vec::len),
        Some(decisions.len())
    );
    assert!(doc["accuracy"].as_f64().is_some(), "{doc}");
    let (_, first) = get(addr, &path).await;
    server.stop().await;

    // Started again on the same database, making no review itself: the
    // review is there at once, the same.
    let mut again = config(dir.path());
    again.reviews_at_once = 0;
    let server = table_server::start(again).await.expect("start again");
    let (status, body) = get(server.addr, &path).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, first);
    // Another seat's review is not: it waits for a server that makes them.
    let (status, doc) = get_json(server.addr, &format!("/api/games/{table}/review?seat=0")).await;
    assert_eq!(
        (status, doc["status"].as_str()),
        (202, Some("queued")),
        "{doc}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mille_games_review_of_a_computers_seat_is_made() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(config(dir.path()))
        .await
        .expect("start");
    let addr = server.addr;
    let mut ann = Client::open(addr).await;
    ann.hello("ann", None).await;
    let table = ann
        .open_table(create(
            "mille",
            Value::Null,
            json!([{"kind": "human"}, {"kind": "computer", "level": "classic"}]),
            Some(0),
        ))
        .await;
    // A game in play has no review yet, and says why.
    let why = refused(addr, &format!("/api/games/{table}/review?seat=0"), 404).await;
    assert!(why.contains("not over"), "{why}");
    play_out(&mut ann, table, mille_pick).await;
    recorded(addr, table, "").await;
    let (_, doc) = reviewed(addr, &format!("/api/games/{table}/review?seat=1")).await;
    assert_eq!(doc["game"], json!("mille"));
    assert_eq!(doc["unit"], json!("points"));
    let decisions = doc["decisions"].as_array().expect("decisions");
    assert!(decisions.len() > 5, "{doc}");
    assert!(
        decisions
            .iter()
            .all(|d| d["label"].as_str().is_some_and(|l| l.starts_with("Hand "))),
        "{doc}"
    );
    assert!(!doc["hands"].as_array().expect("hands").is_empty(), "{doc}");
    assert!(
        doc["worst"].as_array().is_some_and(|w| w.len() <= 3),
        "{doc}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_line_is_answered_503_and_a_private_game_needs_its_code() {
    let dir = tempfile::tempdir().expect("dir");
    let mut c = config(dir.path());
    // Nothing is made: what waits stays waiting.
    c.reviews_at_once = 0;
    c.review_queue = 1;
    let server = table_server::start(c).await.expect("start");
    let addr = server.addr;
    let (table, code) = cubes_game(addr, true).await;
    let code = code.expect("a private table's code");

    // Without its code, a private table's game is not even said to exist.
    let stranger = refused(addr, &format!("/api/games/{table}/review?seat=0"), 404).await;
    assert_eq!(
        stranger,
        refused(addr, "/api/games/999999/review?seat=0", 404)
            .await
            .replace("999999", &table.to_string())
    );
    refused(
        addr,
        &format!("/api/games/{table}/review?seat=0&code=wrong"),
        404,
    )
    .await;

    let ask = |seat: usize| format!("/api/games/{table}/review?seat={seat}&code={code}");
    let (status, doc) = get_json(addr, &ask(0)).await;
    assert_eq!(status, 202, "{doc}");
    assert_eq!(doc["status"], json!("queued"));
    assert_eq!(doc["position"], json!(1));
    // Asked again, it is the same place in the line, not a second job.
    let (status, again) = get_json(addr, &ask(0)).await;
    assert_eq!((status, &again), (202, &doc));
    // The line holds one: the next is refused with a sentence.
    let why = refused(addr, &ask(1), 503).await;
    assert!(why.contains("try again") || why.contains("again"), "{why}");

    // Wrong questions are answered 400.
    for bad in [
        format!("/api/games/{table}/review?code={code}"),
        format!("/api/games/{table}/review?seat=2&code={code}"),
        format!("/api/games/{table}/review?seat=x&code={code}"),
        format!("/api/games/{table}/review?seat=0&seat=1&code={code}"),
        format!("/api/games/{table}/review?seat=0&who=1&code={code}"),
        "/api/games/12a/review?seat=0".to_string(),
    ] {
        refused(addr, &bad, 400).await;
    }
    server.stop().await;
}
