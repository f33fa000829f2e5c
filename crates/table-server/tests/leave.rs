//! When people leave, over real sockets on loopback: a table nobody is at
//! is paused and closed as abandoned, a stand-in plays for a person who
//! left while somebody stayed (and that person abandoned the game: no high
//! score, a loss in the ratings), a returning person is told how the game
//! ended, and a table answers its commands between computer moves.

mod common;

use common::{Client, create, legal};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use table_protocol::{ClientMessage, GameKind, LadderEntry, ServerMessage, TableStatus};

fn config(dir: &std::path::Path) -> table_server::Config {
    let mut c = common::config(dir);
    c.limits.messages_per_second = 1000;
    c.limits.burst = 2000;
    c
}

/// ann and bob sit at a new cubes table of two people; answers its number.
async fn two_at_cubes(ann: &mut Client, bob: &mut Client) -> u64 {
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
    table
}

/// A table's lobby line as `list` gives it.
async fn line(client: &mut Client, table: u64) -> Option<table_protocol::TableSummary> {
    client.send(&ClientMessage::List).await;
    client
        .until(|m| match m {
            ServerMessage::Tables { tables } => Some(tables.clone()),
            _ => None,
        })
        .await
        .into_iter()
        .find(|t| t.id == table)
}

/// The ladder of a category.
async fn ladder(client: &mut Client, game: GameKind, rules: &str) -> Vec<LadderEntry> {
    client
        .send(&ClientMessage::Ladder {
            game,
            rules: Some(rules.into()),
            players: None,
        })
        .await;
    client
        .until(|m| match m {
            ServerMessage::Ladder { entries, .. } => Some(entries.clone()),
            ServerMessage::Error(e) => panic!("ladder refused: {e:?}"),
            _ => None,
        })
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_both_people_gone_the_table_makes_no_move_and_closes_as_abandoned() {
    let dir = tempfile::tempdir().expect("dir");
    let mut c = config(dir.path());
    c.away = Duration::from_millis(200);
    c.abandon_after = Duration::from_secs(3);
    let server = table_server::start(c).await.expect("start");
    let mut ann = Client::open(server.addr).await;
    let ann_token = ann.hello("ann", None).await;
    let mut bob = Client::open(server.addr).await;
    bob.hello("bob", None).await;
    let table = two_at_cubes(&mut ann, &mut bob).await;
    let mut eve = Client::open(server.addr).await;
    eve.hello("eve", None).await;
    eve.send(&ClientMessage::Watch {
        table,
        code: None,
        since: None,
    })
    .await;
    let seq = eve
        .until(|m| match m {
            ServerMessage::Watching { seq, .. } => Some(*seq),
            _ => None,
        })
        .await;
    drop(ann);
    drop(bob);
    // Ten times the away time: no computer plays for either of them,
    // although a spectator still watches.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let now = line(&mut eve, table).await.expect("listed");
    assert_eq!(now.status, TableStatus::Playing);
    assert_eq!(
        now.seq, seq,
        "no move was made while nobody was at the table"
    );
    assert!(now.seats.iter().all(|s| !s.away && s.stand_in_in.is_none()));
    // Past --abandon-after the table is closed, with no result.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let status = line(&mut eve, table).await.map(|t| t.status);
        if status != Some(TableStatus::Playing) {
            break;
        }
        assert!(Instant::now() < deadline, "the paused table never closed");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Nothing in the ratings, and ann is told when she comes back.
    assert!(
        ladder(&mut eve, GameKind::Cubes, "standard")
            .await
            .is_empty()
    );
    let mut ann = Client::open(server.addr).await;
    ann.hello("ann", Some(ann_token)).await;
    let ended = ann
        .until(|m| match m {
            ServerMessage::Ended { tables } => Some(tables.clone()),
            _ => None,
        })
        .await;
    assert_eq!(ended.len(), 1, "{ended:?}");
    assert_eq!(ended[0].table, table);
    assert!(
        ended[0].message.contains("closed"),
        "the message says the table closed: {}",
        ended[0].message
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stand_in_finishes_for_the_one_who_left_who_abandoned_and_is_told() {
    let dir = tempfile::tempdir().expect("dir");
    let mut c = config(dir.path());
    c.away = Duration::from_millis(300);
    let server = table_server::start(c).await.expect("start");
    let mut ann = Client::open(server.addr).await;
    let ann_token = ann.hello("ann", None).await;
    let mut bob = Client::open(server.addr).await;
    bob.hello("bob", None).await;
    let table = two_at_cubes(&mut ann, &mut bob).await;
    drop(ann);
    // bob is told she left and when a computer plays for her, then that
    // one does.
    let countdown = bob
        .until(|m| match m {
            ServerMessage::Update { seats, .. } if !seats[0].connected => {
                Some(seats[0].stand_in_in)
            }
            _ => None,
        })
        .await;
    assert!(
        countdown.is_some_and(|s| s <= 1),
        "the countdown is in the update: {countdown:?}"
    );
    // bob holds at once every turn until the game is over.
    let mut id = 0;
    let mut last_moved = u64::MAX;
    let winner = loop {
        let m = bob.recv().await;
        let (observation, seq) = match &m {
            ServerMessage::Update {
                observation, seq, ..
            } => (observation.clone(), *seq),
            _ => continue,
        };
        if observation["phase"] == "Over" {
            break observation["winner"].as_u64().expect("a winner");
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
    };
    // The last move is shown before the game's end is recorded: the
    // lobby says the table is over once it is.
    let deadline = Instant::now() + Duration::from_secs(10);
    while line(&mut bob, table)
        .await
        .is_some_and(|t| t.status != TableStatus::Over)
    {
        assert!(
            Instant::now() < deadline,
            "the game's end was never recorded"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // ann abandoned: a loss in the ratings, whoever won for her; bob is
    // rated as usual.
    let entries = ladder(&mut bob, GameKind::Cubes, "standard").await;
    let of = |name: &str| entries.iter().find(|e| e.name == name).cloned();
    let ann_rating = of("ann").expect("ann is rated");
    let bob_rating = of("bob").expect("bob is rated");
    assert!(ann_rating.rating < 1500, "{ann_rating:?}");
    assert_eq!(
        ann_rating.wins, 0,
        "an abandoned game is no win: {ann_rating:?}"
    );
    assert_eq!(bob_rating.games, 1);
    // Exactly the rating library's answer for the game as it went (the
    // stand-in's result stands for the others), ann's own as a loss.
    let start = game_rating::Rating::default();
    let place = |seat: u64| usize::from(seat != winner);
    let expected = game_rating::rate(&[
        game_rating::Participant {
            rating: start,
            side: 0,
            place: place(0),
            abandoned: true,
        },
        game_rating::Participant {
            rating: start,
            side: 1,
            place: place(1),
            abandoned: false,
        },
    ])
    .expect("rated");
    assert_eq!(ann_rating.rating, expected[0].rating.round() as i32);
    assert_eq!(bob_rating.rating, expected[1].rating.round() as i32);
    assert_eq!(bob_rating.wins, u32::from(winner == 1));
    // No high score for her; bob's game counts.
    let rankings = rankings(&mut bob).await;
    assert!(rankings.contains("bob"), "{rankings}");
    assert!(!rankings.contains("ann"), "{rankings}");
    // She is told when she comes back, once.
    let mut ann = Client::open(server.addr).await;
    ann.hello("ann", Some(ann_token.clone())).await;
    let ended = ann
        .until(|m| match m {
            ServerMessage::Ended { tables } => Some(tables.clone()),
            _ => None,
        })
        .await;
    assert_eq!(ended.len(), 1);
    assert!(ended[0].abandoned);
    assert!(
        ended[0].message.contains("abandoned"),
        "{}",
        ended[0].message
    );
    assert!(ended[0].message.contains("rating"), "{}", ended[0].message);
    drop(ann);
    let mut ann = Client::open(server.addr).await;
    ann.hello("ann", Some(ann_token)).await;
    ann.send(&ClientMessage::Ping).await;
    let next = ann
        .until(|m| match m {
            ServerMessage::Ended { .. } | ServerMessage::Pong => Some(m.clone()),
            _ => None,
        })
        .await;
    assert_eq!(next, ServerMessage::Pong, "told once");
    server.stop().await;
}

async fn rankings(client: &mut Client) -> String {
    client
        .send(&ClientMessage::Rankings {
            game: GameKind::Cubes,
            kind: None,
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_join_and_a_leave_are_answered_during_a_run_of_computer_moves() {
    let dir = tempfile::tempdir().expect("dir");
    let mut c = config(dir.path());
    // Five computers at 300 ms a move: a run of 1.5 s after each of ann's
    // moves.
    c.bot_delay = Duration::from_millis(300);
    let server = table_server::start(c).await.expect("start");
    let mut ann = Client::open(server.addr).await;
    let token = ann.hello("ann", None).await;
    let computer = json!({"kind": "computer", "level": "classic"});
    let table = ann
        .open_table(create(
            "mille",
            json!({"rules": "classic", "players": 6}),
            json!([{"kind": "human"}, computer, computer, computer, computer, computer]),
            Some(0),
        ))
        .await;
    let mut obs = ann
        .until(|m| match m {
            ServerMessage::Joined { observation, .. } => Some(observation.clone()),
            _ => None,
        })
        .await;
    // ann plays until it is the computers' turn.
    let mut id = 0;
    while legal(&obs).is_empty() {
        obs = ann
            .until(|m| match m {
                ServerMessage::Update { observation, .. } => Some(observation.clone()),
                _ => None,
            })
            .await;
    }
    while !legal(&obs).is_empty() {
        id += 1;
        let action = legal(&obs)[0].clone();
        ann.send(&ClientMessage::Move { table, id, action }).await;
        obs = ann
            .until(|m| match m {
                ServerMessage::Update { observation, .. } => Some(observation.clone()),
                _ => None,
            })
            .await;
    }
    // The computers are at it: a spectator comes and goes, and ann's
    // second connection takes her seat, each answered at once.
    let mut eve = Client::open(server.addr).await;
    eve.hello("eve", None).await;
    let asked = Instant::now();
    eve.send(&ClientMessage::Watch {
        table,
        code: None,
        since: None,
    })
    .await;
    eve.until(|m| matches!(m, ServerMessage::Watching { .. }).then_some(()))
        .await;
    let watch = asked.elapsed();
    let asked = Instant::now();
    eve.send(&ClientMessage::Leave { table }).await;
    eve.until(|m| matches!(m, ServerMessage::Left { .. }).then_some(()))
        .await;
    let leave = asked.elapsed();
    let mut again = Client::open(server.addr).await;
    again.hello("ann", Some(token)).await;
    let asked = Instant::now();
    again
        .send(&ClientMessage::Join {
            table,
            seat: None,
            code: None,
            since: None,
        })
        .await;
    let observation = again
        .until(|m| match m {
            ServerMessage::Joined { observation, .. } => Some(observation.clone()),
            _ => None,
        })
        .await;
    let join = asked.elapsed();
    for (what, took) in [("watch", watch), ("leave", leave), ("join", join)] {
        assert!(
            took < Duration::from_millis(100),
            "{what} answered in {took:?} while computers played"
        );
    }
    assert!(
        legal(&observation).is_empty(),
        "still the computers' run when the join was answered"
    );
    server.stop().await;
}
