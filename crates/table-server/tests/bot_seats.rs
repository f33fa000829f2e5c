//! A bot at a person's table, over real sockets on loopback: invited from
//! `create`, it accepts and then says nothing; past the decision limit the
//! stand-in plays its seat for the rest of the game, and the bot is rated
//! as having abandoned it.

mod common;

use common::{Client, create, legal};
use serde_json::json;
use std::time::{Duration, Instant};
use table_protocol::{BotInfo, ClientMessage, GameKind, ServerMessage, TableStatus, VERSION};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_invited_bot_is_played_by_the_stand_in_and_loses_the_game() {
    let dir = tempfile::tempdir().expect("dir");
    let c = common::fast_config(dir.path(), Duration::from_millis(300));
    let server = table_server::start(c).await.expect("start");
    let mut robo = Client::open(server.addr).await;
    robo.send(&ClientMessage::Hello {
        version: VERSION,
        name: Some("robo".into()),
        token: None,
        client: Some("a silent bot".into()),
        bot: Some(BotInfo {
            owner: "ann".into(),
            description: "says nothing".into(),
            arena: false,
        }),
    })
    .await;
    let bot = robo
        .until(|m| match m {
            ServerMessage::Welcome { bot, .. } => Some(*bot),
            _ => None,
        })
        .await;
    assert!(bot, "robo signed in as a bot");
    let mut ann = Client::open(server.addr).await;
    ann.hello("ann", None).await;
    let table = ann
        .open_table(create(
            "cubes",
            serde_json::Value::Null,
            json!([{"kind": "human"}, {"kind": "bot", "name": "robo"}]),
            Some(0),
        ))
        .await;
    let seat = robo
        .until(|m| match m {
            ServerMessage::Invited { table: t, seat, by } if t.id == table => {
                assert_eq!(by, "ann");
                Some(*seat)
            }
            _ => None,
        })
        .await;
    assert_eq!(seat, 1);
    robo.send(&ClientMessage::Accept { table }).await;
    robo.until(|m| matches!(m, ServerMessage::Joined { .. }).then_some(()))
        .await;
    // ann holds as soon as she may; robo never moves.
    let mut id = 0;
    let mut last_moved = u64::MAX;
    let mut replaced = false;
    loop {
        let (observation, seq, seats) = ann
            .until(|m| match m {
                ServerMessage::Update {
                    observation,
                    seq,
                    seats,
                    ..
                } => Some((observation.clone(), *seq, seats.clone())),
                _ => None,
            })
            .await;
        if seats[1].away {
            assert!(seats[1].bot && seats[1].connected, "{seats:?}");
            replaced = true;
        }
        if observation["phase"] == "Over" {
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
            ann.send(&ClientMessage::Move { table, id, action }).await;
        }
    }
    assert!(replaced, "the stand-in played robo's seat");
    // Its end recorded, robo has a loss, whatever the stand-in made of
    // the game.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        ann.send(&ClientMessage::List).await;
        let status = ann
            .until(|m| match m {
                ServerMessage::Tables { tables } => {
                    Some(tables.iter().find(|t| t.id == table).map(|t| t.status))
                }
                _ => None,
            })
            .await;
        if status != Some(TableStatus::Playing) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the game's end was never recorded"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    ann.send(&ClientMessage::Ladder {
        game: GameKind::Cubes,
        rules: Some("standard".into()),
        players: None,
    })
    .await;
    let entries = ann
        .until(|m| match m {
            ServerMessage::Ladder { entries, .. } => Some(entries.clone()),
            _ => None,
        })
        .await;
    let robo_entry = entries
        .iter()
        .find(|e| e.name == "robo")
        .expect("robo is rated");
    assert!(robo_entry.bot, "{robo_entry:?}");
    assert!(robo_entry.rating < 1500, "{robo_entry:?}");
    assert_eq!((robo_entry.games, robo_entry.wins), (1, 0));
    assert!(entries.iter().any(|e| e.name == "ann" && e.games == 1));
    server.stop().await;
}
