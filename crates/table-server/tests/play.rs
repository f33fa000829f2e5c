//! The server over real sockets on loopback: tables of both games played
//! to their end, reconnection to the same seat, moves sent twice, and the
//! refusals a client can provoke.

mod common;

use common::{Client, create, legal};
use serde_json::{Value, json};
use std::time::Duration;
use table_protocol::{ClientMessage, ErrorCode, ServerMessage, TableStatus, VERSION};

/// The tests' server, whose clients play as fast as it answers: far above
/// the rate a person is held to, which the fuzz tests check.
fn config(dir: &std::path::Path) -> table_server::Config {
    let mut c = common::config(dir);
    c.limits.messages_per_second = 1000;
    c.limits.burst = 2000;
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_and_a_computer_play_a_mille_hand_and_a_spectator_watches() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(config(dir.path()))
        .await
        .expect("start");
    let mut ann = Client::open(server.addr).await;
    ann.hello("ann", None).await;
    let table = ann
        .open_table(create(
            "mille",
            Value::Null,
            json!([{"kind": "human"}, {"kind": "computer", "level": "classic"}]),
            Some(0),
        ))
        .await;
    let mut obs = ann
        .until(|m| match m {
            ServerMessage::Joined { observation, .. } => Some(observation.clone()),
            _ => None,
        })
        .await;
    let mut eve = Client::open(server.addr).await;
    eve.hello("eve", None).await;
    eve.send(&ClientMessage::Watch {
        table,
        code: None,
        since: None,
    })
    .await;
    eve.until(|m| matches!(m, ServerMessage::Watching { .. }).then_some(()))
        .await;
    let mut id = 100;
    let mut hands = 0;
    while hands == 0 {
        if let Some(action) = legal(&obs).first().cloned() {
            id += 1;
            ann.send(&ClientMessage::Move { table, id, action }).await;
            let acked = ann
                .until(|m| match m {
                    ServerMessage::Ack { id: i, .. } if *i == id => Some(true),
                    ServerMessage::Error(e) if e.id == Some(id) => Some(false),
                    _ => None,
                })
                .await;
            assert!(acked, "a legal move is accepted");
        }
        obs = ann
            .until(|m| match m {
                ServerMessage::Update { observation, .. } => Some(observation.clone()),
                _ => None,
            })
            .await;
        if obs["hand_number"].as_u64().unwrap_or(0) > 1 || obs["last_hand"].is_object() {
            hands += 1;
        }
    }
    // The move sent again after a (pretended) drop is answered, not replayed.
    ann.send(&ClientMessage::Move {
        table,
        id,
        action: json!("draw"),
    })
    .await;
    let again = ann
        .until(|m| match m {
            ServerMessage::Ack { id: i, seq, .. } if *i == id => Some(*seq),
            ServerMessage::Error(e) if e.id == Some(id) => panic!("refused: {e:?}"),
            _ => None,
        })
        .await;
    assert!(again > 0);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_people_finish_a_game_of_cubes() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(config(dir.path()))
        .await
        .expect("start");
    let names = ["ann", "bob", "cy"];
    let mut clients = Vec::new();
    for n in names {
        let mut c = Client::open(server.addr).await;
        c.hello(n, None).await;
        clients.push(c);
    }
    let table = clients[0]
        .open_table(create(
            "cubes",
            json!({"game": "blitz"}),
            json!([{"kind": "human"}, {"kind": "human"}, {"kind": "human"}, {"kind": "computer", "level": "steady"}]),
            Some(0),
        ))
        .await;
    for c in clients.iter_mut().skip(1) {
        c.send(&ClientMessage::Join {
            table,
            seat: None,
            code: None,
            since: None,
        })
        .await;
    }
    let mut id = 0;
    let mut over = false;
    let mut moves = 0;
    // The sequence number each client last moved at: an observation of
    // that moment is stale once the move is sent.
    let mut moved_at = [u64::MAX; 3];
    while !over {
        // Whoever has legal actions plays the first one.
        for (k, c) in clients.iter_mut().enumerate() {
            let m = tokio::time::timeout(Duration::from_millis(50), c.recv()).await;
            let Ok(m) = m else { continue };
            match m {
                ServerMessage::Update {
                    observation, seq, ..
                }
                | ServerMessage::Joined {
                    observation, seq, ..
                } => {
                    if moved_at[k] == seq {
                        continue;
                    }
                    if observation["winner"].is_number() {
                        over = true;
                    }
                    let legal = legal(&observation);
                    // Hold when a few hundred points are banked; else roll on.
                    let pick = if observation["hold_value"].as_u64().unwrap_or(0) >= 300 {
                        legal.iter().find(|a| *a == "Hold").cloned()
                    } else {
                        legal.iter().find(|a| *a != "Hold").cloned()
                    }
                    .or_else(|| legal.first().cloned());
                    if let Some(action) = pick {
                        moved_at[k] = seq;
                        id += 1;
                        moves += 1;
                        c.send(&ClientMessage::Move { table, id, action }).await;
                    }
                }
                ServerMessage::Error(e) => panic!("refused: {e:?}"),
                _ => {}
            }
        }
        assert!(moves < 5000, "the game ends");
    }
    // The results are written just after the last move is shown.
    let mut status = None;
    for _ in 0..50 {
        clients[1].send(&ClientMessage::List).await;
        status = clients[1]
            .until(|m| match m {
                ServerMessage::Tables { tables } => {
                    Some(tables.iter().find(|t| t.id == table).map(|t| t.status))
                }
                _ => None,
            })
            .await;
        if status == Some(TableStatus::Over) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(status, Some(TableStatus::Over));
    let text = rankings(
        &mut clients[0],
        table_protocol::GameKind::Cubes,
        Some("Blitz"),
    )
    .await;
    assert!(text.contains("ann") && text.contains("cy"), "{text}");
    // Mille Bornes keeps its high-score table; none finished here yet.
    let text = rankings(&mut clients[0], table_protocol::GameKind::Mille, None).await;
    assert!(
        text.starts_with("Mille high scores") && text.contains("(none yet)"),
        "{text}"
    );
    // A finished table is answered the same way once its server restarted
    // (nobody runs it any more): over, not unknown.
    drop(clients);
    server.stop().await;
    let server = table_server::start(config(dir.path()))
        .await
        .expect("restart");
    let mut dan = Client::open(server.addr).await;
    dan.hello("dan", None).await;
    let refusal = |want: u64| {
        move |m: &ServerMessage| match m {
            ServerMessage::Error(e) if e.table == Some(want) => Some((e.code, e.message.clone())),
            _ => None,
        }
    };
    let join = |table| ClientMessage::Join {
        table,
        seat: None,
        code: None,
        since: None,
    };
    dan.send(&join(table)).await;
    let (code, why) = dan.until(refusal(table)).await;
    assert_eq!(code, ErrorCode::GameOver, "{why}");
    assert!(why.contains("over"), "{why}");
    dan.send(&ClientMessage::Watch {
        table,
        code: None,
        since: None,
    })
    .await;
    assert_eq!(dan.until(refusal(table)).await.0, ErrorCode::GameOver);
    dan.send(&join(table + 100)).await;
    assert_eq!(
        dan.until(refusal(table + 100)).await.0,
        ErrorCode::NoSuchTable
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_tokens_and_refusals() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(config(dir.path()))
        .await
        .expect("start");
    let mut ann = Client::open(server.addr).await;
    ann.send(&ClientMessage::List).await;
    assert!(matches!(ann.recv().await, ServerMessage::Error(e) if e.code == ErrorCode::Handshake));
    let token = ann.hello("ann", None).await;
    assert_eq!(token.len(), 32, "128 bits in hexadecimal");
    let mut thief = Client::open(server.addr).await;
    thief
        .send(&ClientMessage::Hello {
            version: VERSION,
            name: Some("ann".into()),
            token: None,
            client: None,
            bot: None,
        })
        .await;
    assert!(
        matches!(thief.recv().await, ServerMessage::Error(e) if e.code == ErrorCode::NameTaken)
    );
    thief
        .send(&ClientMessage::Hello {
            version: VERSION,
            name: Some("steady sam".into()),
            token: None,
            client: None,
            bot: None,
        })
        .await;
    assert!(matches!(thief.recv().await, ServerMessage::Error(e) if e.code == ErrorCode::BadName));
    let mut again = Client::open(server.addr).await;
    assert_eq!(again.hello("ann", Some(token.clone())).await, token);
    ann.send_text("{\"type\":\"move\",\"table\":99,\"id\":1,\"action\":\"draw\"}")
        .await
        .expect("send");
    assert!(
        matches!(ann.recv().await, ServerMessage::Error(e) if e.code == ErrorCode::NoSuchTable)
    );
    ann.send_text("not json").await.expect("send");
    assert!(matches!(ann.recv().await, ServerMessage::Error(e) if e.code == ErrorCode::BadMessage));
    ann.send(&create(
        "mille",
        json!({"rules":"bsd","players":4}),
        json!([{"kind":"human"},{"kind":"human"},{"kind":"human"},{"kind":"human"}]),
        None,
    ))
    .await;
    assert!(matches!(ann.recv().await, ServerMessage::Error(e) if e.code == ErrorCode::BadSetup));
    // Computers among themselves, or one person alone, make no table.
    for seats in [
        json!([{"kind":"computer","level":"steady"},{"kind":"computer","level":"bold"}]),
        json!([{"kind":"human"}]),
    ] {
        ann.send(&create("cubes", Value::Null, seats, None)).await;
        assert!(
            matches!(ann.recv().await, ServerMessage::Error(e) if e.code == ErrorCode::BadSetup)
        );
    }
    // Five unfinished tables are the most one name opens.
    for _ in 0..5 {
        ann.open_table(create(
            "cubes",
            Value::Null,
            json!([{"kind":"human"},{"kind":"human"}]),
            None,
        ))
        .await;
    }
    ann.send(&create(
        "cubes",
        Value::Null,
        json!([{"kind":"human"},{"kind":"human"}]),
        None,
    ))
    .await;
    assert!(matches!(ann.recv().await, ServerMessage::Error(e) if e.code == ErrorCode::BadSetup));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_away_player_is_stood_in_for_and_gets_the_seat_back() {
    let dir = tempfile::tempdir().expect("dir");
    let mut c = config(dir.path());
    c.away = Duration::from_millis(300);
    let server = table_server::start(c).await.expect("start");
    let mut ann = Client::open(server.addr).await;
    let token = ann.hello("ann", None).await;
    let mut bob = Client::open(server.addr).await;
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
    bob.until(|m| matches!(m, ServerMessage::Joined { .. }).then_some(()))
        .await;
    // ann goes; after the away time a computer plays her turns, and
    // everybody is told.
    drop(ann);
    let (away, mut next) = bob
        .until(|m| match m {
            ServerMessage::Update { seats, .. } if seats[0].away => {
                Some((seats[0].clone(), Some(m.clone())))
            }
            _ => None,
        })
        .await;
    assert_eq!(away.player.as_deref(), Some("ann"));
    assert_eq!(away.level.as_deref(), Some("steady"));
    // bob plays his turns (holding at once) until the stand-in has rolled
    // for ann.
    let mut id = 0;
    let mut last_moved = u64::MAX;
    let mut stood_in = false;
    for _ in 0..200 {
        let m = match next.take() {
            Some(m) => m,
            None => bob.recv().await,
        };
        let ServerMessage::Update {
            observation, seq, ..
        } = m
        else {
            continue;
        };
        let events = observation["events"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if events.iter().any(|e| e.to_string().contains("\"seat\":0")) {
            stood_in = true;
            break;
        }
        let legal = legal(&observation);
        if seq != last_moved && !legal.is_empty() {
            last_moved = seq;
            id += 1;
            let action = legal
                .iter()
                .find(|a| *a == "Hold")
                .unwrap_or(&legal[0])
                .clone();
            bob.send(&ClientMessage::Move { table, id, action }).await;
        }
    }
    assert!(stood_in, "a computer played ann's turn while she was away");
    // She comes back with her token: the seat is hers again, with what she
    // missed since the last number she saw.
    let mut ann = Client::open(server.addr).await;
    assert_eq!(ann.hello("ann", Some(token)).await.len(), 32);
    ann.send(&ClientMessage::Join {
        table,
        seat: None,
        code: None,
        since: Some(0),
    })
    .await;
    let (seat, observation) = ann
        .until(|m| match m {
            ServerMessage::Joined {
                seat, observation, ..
            } => Some((*seat, observation.clone())),
            _ => None,
        })
        .await;
    assert_eq!(seat, 0);
    assert!(
        observation["events"]
            .as_array()
            .is_some_and(|e| !e.is_empty()),
        "the events since seq 0: {observation}"
    );
    let back = bob
        .until(|m| match m {
            ServerMessage::Update { seats, .. } if !seats[0].away && seats[0].connected => {
                Some(seats[0].clone())
            }
            _ => None,
        })
        .await;
    assert_eq!(back.player.as_deref(), Some("ann"));
    server.stop().await;
}

/// A bot program in a few lines of Python: it discards its first card,
/// never calls coup fourré and never extends.
const DISCARDER: &str = r#"
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    if "hello" in r:
        a = {"id": r["id"], "name": "discarder", "protocol": 1}
    elif r.get("decide") == "turn":
        a = {"id": r["id"], "discard": r["view"]["hand"][0]}
    elif r.get("decide") == "coup_fourre":
        a = {"id": r["id"], "coup_fourre": False}
    elif r.get("decide") == "extension":
        a = {"id": r["id"], "extend": False}
    else:
        a = {"id": r.get("id"), "error": "unknown request"}
    print(json.dumps(a), flush=True)
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_program_named_by_the_operator_takes_a_seat() {
    let dir = tempfile::tempdir().expect("dir");
    let script = dir.path().join("discarder.py");
    std::fs::write(&script, DISCARDER).expect("script");
    let mut c = config(dir.path());
    c.programs = vec![("discarder".into(), format!("python3 {}", script.display()))];
    let server = table_server::start(c).await.expect("start");
    let mut ann = Client::open(server.addr).await;
    ann.send(&ClientMessage::Hello {
        version: VERSION,
        name: Some("ann".into()),
        token: None,
        client: None,
        bot: None,
    })
    .await;
    let levels = ann
        .until(|m| match m {
            ServerMessage::Welcome { games, .. } => Some(games[0].levels.clone()),
            _ => None,
        })
        .await;
    assert!(levels.contains(&"discarder".to_string()), "{levels:?}");
    let table = ann
        .open_table(create(
            "mille",
            Value::Null,
            json!([{"kind": "human"}, {"kind": "computer", "level": "discarder"}]),
            Some(0),
        ))
        .await;
    let mut id = 0;
    let mut last = u64::MAX;
    let mut bot_discarded = false;
    for _ in 0..100 {
        let (seq, observation) = ann
            .until(|m| match m {
                ServerMessage::Joined {
                    seq, observation, ..
                }
                | ServerMessage::Update {
                    seq, observation, ..
                } => Some((*seq, observation.clone())),
                _ => None,
            })
            .await;
        let events = observation["events"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if events
            .iter()
            .any(|e| e["event"] == "discarded" && e["seat"] == 1)
        {
            bot_discarded = true;
            break;
        }
        if let Some(action) = legal(&observation).first().cloned()
            && seq != last
        {
            last = seq;
            id += 1;
            ann.send(&ClientMessage::Move { table, id, action }).await;
        }
    }
    assert!(bot_discarded, "the program played its seat");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_computers_of_one_level_have_two_names() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(config(dir.path()))
        .await
        .expect("start");
    let mut ann = Client::open(server.addr).await;
    ann.hello("ann", None).await;
    ann.open_table(create(
        "cubes",
        Value::Null,
        json!([{"kind": "human"}, {"kind": "computer", "level": "steady"}, {"kind": "computer", "level": "steady"}]),
        Some(0),
    ))
    .await;
    let names: Vec<String> = ann
        .until(|m| match m {
            ServerMessage::Joined { observation, .. } => Some(
                observation["seat_info"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s["name"].as_str().map(str::to_string))
                    .collect(),
            ),
            _ => None,
        })
        .await;
    assert_eq!(names, ["ann", "Steady Sam", "Steady Sam 2"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_nobody_waits_at_any_more_closes() {
    let dir = tempfile::tempdir().expect("dir");
    let mut c = config(dir.path());
    c.away = Duration::from_millis(200);
    let server = table_server::start(c).await.expect("start");
    let mut ann = Client::open(server.addr).await;
    ann.hello("ann", None).await;
    let table = ann
        .open_table(create(
            "mille",
            Value::Null,
            json!([{"kind": "human"}, {"kind": "human"}]),
            Some(0),
        ))
        .await;
    drop(ann);
    let mut bob = Client::open(server.addr).await;
    bob.hello("bob", None).await;
    let mut listed = Vec::new();
    for _ in 0..40 {
        bob.send(&ClientMessage::List).await;
        let seats = bob
            .until(|m| match m {
                ServerMessage::Tables { tables } => Some(
                    tables
                        .iter()
                        .find(|t| t.id == table)
                        .map(|t| t.seats[0].player.clone()),
                ),
                _ => None,
            })
            .await;
        if listed.last() != Some(&seats) {
            listed.push(seats.clone());
        }
        if seats.is_none() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // ann's seat is hers, then given up, then the table is gone.
    assert_eq!(listed, [Some(Some("ann".into())), Some(None), None]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_of_another_site_cannot_open_a_connection() {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(config(dir.path()))
        .await
        .expect("start");
    let url = format!("ws://{}/ws", server.addr);
    let mut foreign = url.clone().into_client_request().expect("request");
    foreign.headers_mut().insert(
        "origin",
        "https://elsewhere.example".parse().expect("header"),
    );
    match tokio_tungstenite::connect_async(foreign).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 403),
        other => panic!("a foreign page got {other:?}"),
    }
    let mut own = url.into_client_request().expect("request");
    let origin = format!("http://{}", server.addr);
    own.headers_mut()
        .insert("origin", origin.parse().expect("header"));
    assert!(tokio_tungstenite::connect_async(own).await.is_ok());
    server.stop().await;
}

/// Asks for a game's rankings and answers their text.
async fn rankings(
    client: &mut Client,
    game: table_protocol::GameKind,
    kind: Option<&str>,
) -> String {
    client
        .send(&ClientMessage::Rankings {
            game,
            kind: kind.map(String::from),
            min_games: Some(1),
        })
        .await;
    client
        .until(|m| match m {
            ServerMessage::Rankings { text, .. } => Some(text.clone()),
            _ => None,
        })
        .await
}
