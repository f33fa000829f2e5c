//! Bot accounts over real sockets on loopback: a bot registers and is
//! listed, a person invites it to a rated table, it accepts and both play
//! a whole game, and both ratings move (the bot's marked on the ladder); a
//! bot that declines frees its seat for anybody; and what is refused: a
//! person's name saying hello as a bot, a bot at a table that takes none,
//! a person at a seat kept for a bot, a bot not connected invited, and a
//! bot opening a table.

mod common;

use common::{Client, Dice, create, get, legal};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use table_protocol::{
    BotInfo, ClientMessage, ErrorBody, ErrorCode, GameKind, LadderEntry, ServerMessage,
    TableStatus, TableSummary, VERSION,
};

fn config(dir: &std::path::Path) -> table_server::Config {
    // Not the default decision limit, so that the welcome is seen to
    // announce this one.
    common::fast_config(dir, Duration::from_secs(7))
}

fn robo() -> BotInfo {
    BotInfo {
        owner: "ann".into(),
        description: "plays a legal move at random".into(),
        arena: false,
    }
}

/// Says hello as `name` with `bot`; answers the server's first answer.
async fn hello_as(
    client: &mut Client,
    name: &str,
    token: Option<String>,
    bot: Option<BotInfo>,
) -> ServerMessage {
    client
        .send(&ClientMessage::Hello {
            version: VERSION,
            name: Some(name.into()),
            token,
            client: Some("bots test".into()),
            bot,
        })
        .await;
    client.recv().await
}

/// A bot connected as `name`: its client and token.
async fn bot(addr: std::net::SocketAddr, name: &str) -> (Client, String) {
    let mut client = Client::open(addr).await;
    match hello_as(&mut client, name, None, Some(robo())).await {
        ServerMessage::Welcome {
            token, bot, limits, ..
        } => {
            assert!(bot, "the welcome says the name is a bot's");
            assert_eq!(limits.decision_seconds, 7, "the decision limit announced");
            (client, token)
        }
        other => panic!("expected welcome, got {other:?}"),
    }
}

/// The next error, skipping other messages.
async fn error(client: &mut Client) -> ErrorBody {
    client
        .until(|m| match m {
            ServerMessage::Error(e) => Some(e.clone()),
            _ => None,
        })
        .await
}

/// A table's lobby line as `list` gives it.
async fn line(client: &mut Client, table: u64) -> TableSummary {
    client.send(&ClientMessage::List).await;
    client
        .until(|m| match m {
            ServerMessage::Tables { tables } => Some(tables.clone()),
            _ => None,
        })
        .await
        .into_iter()
        .find(|t| t.id == table)
        .expect("the table is listed")
}

/// A two-player classic mille table: seat 0 the creator's, seat 1 kept for
/// `bot`.
fn against(bot: &str) -> ClientMessage {
    create(
        "mille",
        json!({"rules": "classic", "players": 2}),
        json!([{"kind": "human"}, {"kind": "bot", "name": bot}]),
        Some(0),
    )
}

/// The invitation a bot gets: table, seat and who invited it.
async fn invitation(bot: &mut Client) -> (TableSummary, usize, String) {
    bot.until(|m| match m {
        ServerMessage::Invited { table, seat, by } => Some((table.clone(), *seat, by.clone())),
        ServerMessage::Error(e) => panic!("refused: {e:?}"),
        _ => None,
    })
    .await
}

/// Plays `client`'s seat at `table` until the game is over, a legal
/// action at random each time it has any, ready between hands; gives the
/// client back.
async fn play_out(mut client: Client, table: u64, seed: u64) -> Client {
    let mut dice = Dice::new(seed);
    let mut id = 0u64;
    let mut moved_at = None;
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
        let phase = &observation["status"]["phase"];
        if phase == "game_over" {
            return client;
        }
        if phase == "hand_over" {
            client.send(&ClientMessage::Ready { table }).await;
            continue;
        }
        let legal = legal(&observation);
        // A declined coup fourré changes no sequence number but the
        // choices: what was acted on is both.
        let key = (seq, legal.clone());
        if legal.is_empty() || moved_at.as_ref() == Some(&key) {
            continue;
        }
        moved_at = Some(key);
        id += 1;
        assert!(id < 20_000, "the game ends");
        let action = legal[dice.below(legal.len())].clone();
        client
            .send(&ClientMessage::Move { table, id, action })
            .await;
    }
}

/// The ladder of two-player classic mille.
async fn ladder(client: &mut Client) -> Vec<LadderEntry> {
    client
        .send(&ClientMessage::Ladder {
            game: GameKind::Mille,
            rules: Some("classic".into()),
            players: Some(2),
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
async fn an_invited_bot_plays_a_rated_game_against_a_person_and_both_ratings_move() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(config(dir.path()))
        .await
        .expect("start");
    let (mut robo_client, _) = bot(server.addr, "robo").await;
    let mut ann = Client::open(server.addr).await;
    ann.hello("ann", None).await;

    // The bot is offered to play against.
    ann.send(&ClientMessage::Bots).await;
    let bots = ann
        .until(|m| match m {
            ServerMessage::Bots { bots } => Some(bots.clone()),
            _ => None,
        })
        .await;
    assert_eq!(bots.len(), 1, "{bots:?}");
    assert_eq!(
        (bots[0].name.as_str(), bots[0].owner.as_str()),
        ("robo", "ann")
    );
    assert_eq!(bots[0].description, "plays a legal move at random");

    let table = ann.open_table(against("robo")).await;
    let (summary, seat, by) = invitation(&mut robo_client).await;
    assert_eq!((summary.id, seat, by.as_str()), (table, 1, "ann"));
    assert!(summary.rated);
    let kept = &summary.seats[1];
    assert_eq!(kept.player.as_deref(), Some("robo"));
    assert!(kept.bot && kept.invited && !kept.connected, "{kept:?}");
    assert_eq!(
        line(&mut ann, table).await.status,
        TableStatus::Waiting,
        "the table waits for its bot"
    );

    robo_client.send(&ClientMessage::Accept { table }).await;
    // Both play at once, each on a task of its own.
    let robo_game = tokio::spawn(play_out(robo_client, table, 7));
    let ann_game = tokio::spawn(play_out(ann, table, 11));
    let mut ann = ann_game.await.expect("ann plays to the end");
    let _robo_client = robo_game.await.expect("robo plays to the end");

    // The lobby line marks the bot's seat; the game's end is recorded
    // once the lobby says the table is over.
    let deadline = Instant::now() + Duration::from_secs(20);
    let summary = loop {
        let summary = line(&mut ann, table).await;
        if summary.status == TableStatus::Over {
            break summary;
        }
        assert!(
            Instant::now() < deadline,
            "the game's end was never recorded"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let seat = &summary.seats[1];
    assert_eq!(seat.player.as_deref(), Some("robo"));
    assert!(seat.bot && !seat.invited, "{seat:?}");
    assert!(!summary.seats[0].bot);

    let entries = ladder(&mut ann).await;
    let of = |name: &str| {
        entries
            .iter()
            .find(|e| e.name == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name} is rated: {entries:?}"))
    };
    let (ann_line, robo_line) = (of("ann"), of("robo"));
    assert_eq!((ann_line.games, robo_line.games), (1, 1));
    // The winner's rating went up from the start, the loser's down.
    for line in [&ann_line, &robo_line] {
        if line.wins == 1 {
            assert!(line.rating > 1500, "{line:?}");
        } else {
            assert!(line.rating < 1500, "{line:?}");
        }
    }
    assert_eq!(ann_line.wins + robo_line.wins, 1, "one of them won");
    assert!(robo_line.bot && !robo_line.computer, "{robo_line:?}");
    assert!(!ann_line.bot);
    // The site's ladder says the same.
    let (status, body) = get(
        server.addr,
        "/api/ladder?game=mille&rules=classic&players=2",
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let start = body.find('[').expect("a JSON array");
    let end = body.rfind(']').expect("a JSON array");
    let site: Vec<Value> = serde_json::from_str(&body[start..=end]).expect("JSON");
    let robo_site = site
        .iter()
        .find(|e| e["name"] == "robo")
        .expect("robo on the site's ladder");
    assert_eq!(robo_site["bot"], json!(true));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_that_declines_frees_its_seat_for_anybody() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(config(dir.path()))
        .await
        .expect("start");
    let (mut robo_client, _) = bot(server.addr, "robo").await;
    let mut ann = Client::open(server.addr).await;
    ann.hello("ann", None).await;
    let table = ann.open_table(against("robo")).await;
    let (summary, seat, _) = invitation(&mut robo_client).await;
    assert_eq!((summary.id, seat), (table, 1));
    robo_client
        .send(&ClientMessage::Decline {
            table,
            reason: Some("not now".into()),
        })
        .await;
    let declined = ann
        .until(|m| match m {
            ServerMessage::Declined { .. } => Some(m.clone()),
            _ => None,
        })
        .await;
    assert_eq!(
        declined,
        ServerMessage::Declined {
            table,
            seat: 1,
            bot: "robo".into(),
            reason: "not now".into()
        }
    );
    let free = &line(&mut ann, table).await.seats[1];
    assert!(
        free.player.is_none() && !free.bot && !free.invited,
        "{free:?}"
    );
    // A person takes it, and the game starts.
    let mut bob = Client::open(server.addr).await;
    bob.hello("bob", None).await;
    bob.send(&ClientMessage::Join {
        table,
        seat: Some(1),
        code: None,
        since: None,
    })
    .await;
    bob.until(|m| match m {
        ServerMessage::Joined { seat, .. } => Some(*seat),
        ServerMessage::Error(e) => panic!("bob was refused: {e:?}"),
        _ => None,
    })
    .await;
    assert_eq!(line(&mut ann, table).await.status, TableStatus::Playing);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_bots_and_people_may_not_do() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(config(dir.path()))
        .await
        .expect("start");
    let mut ann = Client::open(server.addr).await;
    let ann_token = ann.hello("ann", None).await;

    // A person's name is not a bot's, with its token or without.
    let mut fake = Client::open(server.addr).await;
    for token in [Some(ann_token.clone()), None] {
        match hello_as(&mut fake, "ann", token, Some(robo())).await {
            ServerMessage::Error(e) => {
                assert_eq!(e.code, ErrorCode::BadName, "{e:?}");
                assert_eq!(e.message, "ann is a person's name, not a bot's");
            }
            other => panic!("expected bad_name, got {other:?}"),
        }
    }
    // A bot's name stays a bot's when it says hello without its info (a
    // link from another instance does).
    let (robo_client, robo_token) = bot(server.addr, "robo").await;
    let mut again = Client::open(server.addr).await;
    match hello_as(&mut again, "robo", Some(robo_token.clone()), None).await {
        ServerMessage::Welcome { bot, .. } => assert!(bot, "still a bot"),
        other => panic!("expected welcome, got {other:?}"),
    }
    drop(again);

    // A bot opens no table.
    let mut robo = robo_client;
    robo.send(&create(
        "mille",
        json!({"rules": "classic", "players": 2}),
        json!([{"kind": "human"}, {"kind": "human"}]),
        Some(0),
    ))
    .await;
    let e = error(&mut robo).await;
    assert_eq!(e.code, ErrorCode::BadSetup, "{e:?}");
    assert_eq!(e.message, "a bot does not open tables: it is invited");

    // A bot sits only where bots are taken.
    let people = ann
        .open_table(create(
            "mille",
            json!({"rules": "classic", "players": 2}),
            json!([{"kind": "human"}, {"kind": "human"}]),
            Some(0),
        ))
        .await;
    robo.send(&ClientMessage::Join {
        table: people,
        seat: Some(1),
        code: None,
        since: None,
    })
    .await;
    let e = error(&mut robo).await;
    assert_eq!(e.code, ErrorCode::NoSuchSeat, "{e:?}");
    assert!(e.message.contains("does not take bots"), "{e:?}");
    let open = ClientMessage::parse(
        &json!({"type": "create", "game": "mille", "setup": {"rules": "classic", "players": 2},
            "seats": [{"kind": "human"}, {"kind": "human"}], "sit": 0, "bots": true})
        .to_string(),
    )
    .expect("create");
    let open = ann.open_table(open).await;
    assert!(line(&mut ann, open).await.bots);
    robo.send(&ClientMessage::Join {
        table: open,
        seat: None,
        code: None,
        since: None,
    })
    .await;
    let seat = robo
        .until(|m| match m {
            ServerMessage::Joined { seat, .. } => Some(*seat),
            ServerMessage::Error(e) => panic!("robo was refused: {e:?}"),
            _ => None,
        })
        .await;
    assert_eq!(
        seat, 1,
        "a bot takes a free seat at a table that takes bots"
    );

    // A person never takes a seat kept for a bot.
    let kept = ann.open_table(against("robo")).await;
    let mut bob = Client::open(server.addr).await;
    bob.hello("bob", None).await;
    bob.send(&ClientMessage::Join {
        table: kept,
        seat: Some(1),
        code: None,
        since: None,
    })
    .await;
    let e = error(&mut bob).await;
    assert_eq!(e.code, ErrorCode::SeatTaken, "{e:?}");

    // Only a bot connected here now is invited.
    ann.send(&against("ghost")).await;
    let e = error(&mut ann).await;
    assert_eq!(e.code, ErrorCode::BadSetup, "{e:?}");
    assert_eq!(e.message, "no bot named ghost is connected");
    // A bot holds one seat of a table.
    ann.send(&create(
        "mille",
        json!({"rules": "classic", "players": 3}),
        json!([{"kind": "human"}, {"kind": "bot", "name": "robo"}, {"kind": "bot", "name": "robo"}]),
        Some(0),
    ))
    .await;
    let e = error(&mut ann).await;
    assert_eq!(e.code, ErrorCode::BadSetup, "{e:?}");
    assert_eq!(e.message, "robo is invited to two seats: a bot takes one");
    drop(robo);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        ann.send(&ClientMessage::Bots).await;
        let bots = ann
            .until(|m| match m {
                ServerMessage::Bots { bots } => Some(bots.clone()),
                _ => None,
            })
            .await;
        if bots.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "a bot gone is no longer listed: {bots:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    ann.send(&against("robo")).await;
    let e = error(&mut ann).await;
    assert_eq!(e.code, ErrorCode::BadSetup, "{e:?}");
    assert_eq!(e.message, "no bot named robo is connected");
    server.stop().await;
}

/// The observations a seat is sent while the table waits show no legal
/// move (nobody may move yet): a bot that came first and acted on them
/// would be refused and, keyed on new observations, wait for ever. Once
/// the last seat is taken the legal moves come.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_seated_first_is_shown_its_moves_only_once_the_game_starts() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(config(dir.path()))
        .await
        .expect("start");
    // Each seat in turn is the bot's, so that one of the two tables has
    // the bot moving first.
    for bot_seat in [0usize, 1] {
        let name = format!("robo{bot_seat}");
        let (mut robo_client, _) = bot(server.addr, &name).await;
        let mut ann = Client::open(server.addr).await;
        ann.hello(&format!("ann{bot_seat}"), None).await;
        let mut seats = vec![json!({"kind": "human"}); 2];
        seats[bot_seat] = json!({"kind": "bot", "name": name});
        let table = ann
            .open_table(create(
                "mille",
                json!({"rules": "classic", "players": 2}),
                Value::Array(seats),
                None,
            ))
            .await;
        invitation(&mut robo_client).await;
        robo_client.send(&ClientMessage::Accept { table }).await;
        let waiting = robo_client
            .until(|m| match m {
                ServerMessage::Joined { observation, .. } => Some(observation.clone()),
                ServerMessage::Error(e) => panic!("refused: {e:?}"),
                _ => None,
            })
            .await;
        assert!(legal(&waiting).is_empty(), "{waiting}");
        ann.send(&ClientMessage::Join {
            table,
            seat: Some(1 - bot_seat),
            code: None,
            since: None,
        })
        .await;
        // Whoever moves first is shown its moves now.
        let (ann_first, robo_first) = (
            ann.until(|m| match m {
                ServerMessage::Joined { observation, .. } => Some(observation.clone()),
                ServerMessage::Error(e) => panic!("ann was refused: {e:?}"),
                _ => None,
            })
            .await,
            robo_client
                .until(|m| match m {
                    ServerMessage::Update {
                        observation, seats, ..
                    } if seats.iter().all(|s| s.player.is_some()) => Some(observation.clone()),
                    _ => None,
                })
                .await,
        );
        assert!(
            !legal(&ann_first).is_empty() || !legal(&robo_first).is_empty(),
            "the game started: {} / {}",
            ann_first["status"],
            robo_first["status"]
        );
    }
    server.stop().await;
}
