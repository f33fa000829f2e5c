//! The storage of bot accounts and the arena: a name's kind fixed at its
//! registration, a bot's owner and description, seats kept for invited
//! bots, the tables' bot and arena columns read back, forfeits, the
//! arena's finished games and the ladder's bot flag. On SQLite, and on
//! PostgreSQL when the tests have a cluster (see `tests.rs`).

use super::tests::{databases, finished, new_table, open, row, started};
use super::*;

fn info(owner: &str, description: &str) -> BotInfo {
    BotInfo {
        owner: owner.into(),
        description: description.into(),
        arena: false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_is_a_bots_or_a_persons_from_its_registration() {
    for db in databases().await {
        let store = open(&db).await;
        let first = info("ann", "plays the first legal move");
        assert!(
            store
                .claim_bot("robo", "t-robo", &first)
                .await
                .expect("bot")
        );
        assert!(store.claim("ann", "t-ann").await.expect("person"));
        assert_eq!(
            store.bot_info("robo").await.expect("info"),
            Some(first.clone()),
            "{}",
            db.label
        );
        assert_eq!(store.bot_info("ann").await.expect("info"), None);
        assert_eq!(store.bot_info("nobody").await.expect("info"), None);
        // A taken name is not claimed again, whatever kind is asked.
        assert!(
            !store
                .claim_bot("ann", "t-other", &first)
                .await
                .expect("claim")
        );
        assert_eq!(store.bot_info("ann").await.expect("info"), None);
        assert!(!store.claim("robo", "t-other").await.expect("claim"));
        // A returning bot's hello updates what it says of itself; a
        // person's name is never made a bot by it.
        let second = info("bob", "now plays the last one");
        store.update_bot("robo", &second).await.expect("update");
        store.update_bot("ann", &second).await.expect("no update");
        assert_eq!(
            store.bot_info("robo").await.expect("info"),
            Some(second),
            "{}",
            db.label
        );
        assert_eq!(store.bot_info("ann").await.expect("info"), None);
        assert_eq!(
            store.name_of("t-robo").await.expect("name"),
            Some("robo".into())
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tables_invited_bot_and_arena_are_read_back() {
    for db in databases().await {
        let store = open(&db).await;
        assert!(
            store
                .claim_bot("robo", "t-robo", &info("ann", ""))
                .await
                .expect("bot")
        );
        assert!(store.claim("ann", "t-ann").await.expect("person"));
        let table = NewTable {
            levels: vec![None, None, Some("classic".into())],
            invited: vec![None, Some("robo".into()), None],
            bots_allowed: true,
            arena: Some(ArenaTag {
                arena: "mille-classic".into(),
                round: 3,
            }),
            ..new_table()
        };
        let id = store.create(table).await.expect("create");
        store
            .set_owner(id, 0, Some("ann".into()))
            .await
            .expect("owner");
        assert_eq!(
            store.seats_of("robo").await.expect("seats"),
            vec![SeatRef {
                table: id,
                game: GameKind::Mille,
                seat: 1
            }],
            "{}: the invited seat is the bot's",
            db.label
        );
        // As another start would read it.
        store.release(id).await.expect("release");
        let stored = store
            .take(id)
            .await
            .expect("take")
            .expect("free")
            .expect("readable");
        assert_eq!(
            stored.seats,
            vec![
                (None, Some("ann".into())),
                (None, Some("robo".into())),
                (Some("classic".into()), None)
            ],
            "{}",
            db.label
        );
        assert_eq!(stored.bots, vec![false, true, false], "{}", db.label);
        assert!(stored.bots_allowed, "{}", db.label);
        assert_eq!(
            stored.arena,
            Some(ArenaTag {
                arena: "mille-classic".into(),
                round: 3
            }),
            "{}",
            db.label
        );
        // A plain table has none of it.
        let plain = store.create(new_table()).await.expect("create");
        store.release(plain).await.expect("release");
        let stored = store
            .take(plain)
            .await
            .expect("take")
            .expect("free")
            .expect("readable");
        assert_eq!(stored.bots, vec![false, false], "{}", db.label);
        assert!(!stored.bots_allowed);
        assert_eq!(stored.arena, None);
    }
}

/// An arena table of `a` (seat 0) and `b` (seat 1), played and finished
/// with these scores; `a` won.
async fn arena_game(
    store: &Store,
    arena: &str,
    round: u32,
    (a, b): (&str, &str),
    forfeit: Option<Forfeit>,
) -> TableId {
    let table = NewTable {
        levels: vec![None, None],
        invited: vec![Some(a.into()), Some(b.into())],
        rated: true,
        arena: Some(ArenaTag {
            arena: arena.into(),
            round,
        }),
        ..new_table()
    };
    let id = store.create(table).await.expect("create");
    started(store, id).await;
    let mut results = vec![row(a, 700, true, 0, 0), row(b, 300, false, 1, 1)];
    if forfeit.is_some() {
        results[1].abandoned = true;
    }
    let game = FinishedGame {
        forfeit,
        ..finished(results, None, Some(Category::MilleClassic(2)))
    };
    store.finish(id, game).await.expect("finish");
    id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forfeit_and_the_arenas_games_are_kept() {
    for db in databases().await {
        let store = open(&db).await;
        for name in ["x", "y", "z"] {
            assert!(
                store
                    .claim_bot(name, &format!("t-{name}"), &info("ann", ""))
                    .await
                    .expect("bot")
            );
        }
        let lost = Forfeit {
            seat: 1,
            reason: "sent an illegal move: no such card".into(),
        };
        let first = arena_game(&store, "mille-classic", 1, ("x", "y"), None).await;
        let second = arena_game(&store, "mille-classic", 1, ("z", "x"), Some(lost.clone())).await;
        // Another arena's game, and an arena game not over yet, are not
        // this arena's games.
        arena_game(&store, "mille-bsd", 1, ("x", "z"), None).await;
        let unfinished = NewTable {
            levels: vec![None, None],
            invited: vec![Some("y".into()), Some("z".into())],
            arena: Some(ArenaTag {
                arena: "mille-classic".into(),
                round: 2,
            }),
            ..new_table()
        };
        store.create(unfinished).await.expect("create");

        let record = store.game(second).await.expect("game").expect("over");
        assert_eq!(record.forfeit, Some(lost.clone()), "{}", db.label);
        assert_eq!(record.table.bots, vec![true, true]);
        let record = store.game(first).await.expect("game").expect("over");
        assert_eq!(record.forfeit, None, "{}", db.label);

        let games = store.arena_games("mille-classic").await.expect("games");
        let seat = |name: &str, score: i64, won: bool| ArenaSeat {
            name: name.into(),
            score,
            won,
        };
        assert_eq!(
            games
                .iter()
                .map(|g| (g.table, g.round, g.seats.clone(), g.forfeit.clone()))
                .collect::<Vec<_>>(),
            vec![
                (
                    second,
                    1,
                    vec![seat("z", 700, true), seat("x", 300, false)],
                    Some(lost)
                ),
                (
                    first,
                    1,
                    vec![seat("x", 700, true), seat("y", 300, false)],
                    None
                ),
            ],
            "{}: newest first",
            db.label
        );
        assert!(games.iter().all(|g| g.finished_at > 0));
        assert!(
            store
                .arena_games("mille-milebones")
                .await
                .expect("games")
                .is_empty()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_are_rated_on_the_ladder_and_marked() {
    for db in databases().await {
        let store = open(&db).await;
        assert!(store.claim("ann", "t-ann").await.expect("person"));
        assert!(
            store
                .claim_bot("robo", "t-robo", &info("ann", ""))
                .await
                .expect("bot")
        );
        let table = NewTable {
            levels: vec![None, None],
            invited: vec![None, Some("robo".into())],
            rated: true,
            ..new_table()
        };
        let id = store.create(table).await.expect("create");
        store
            .set_owner(id, 0, Some("ann".into()))
            .await
            .expect("owner");
        started(&store, id).await;
        let results = vec![row("ann", 700, true, 0, 0), row("robo", 300, false, 1, 1)];
        let category = Category::MilleClassic(2);
        store
            .finish(id, finished(results, None, Some(category)))
            .await
            .expect("finish");
        let ladder = store.ladder(category, 10).await.expect("ladder");
        let flags: Vec<(String, bool)> = ladder.iter().map(|r| (r.name.clone(), r.bot)).collect();
        assert_eq!(
            flags,
            vec![("ann".to_string(), false), ("robo".to_string(), true)],
            "{}",
            db.label
        );
        assert!(ladder[1].rating.rating < 1500.0);
        let rows = store
            .ratings(category, vec!["robo".into(), "ann".into()])
            .await
            .expect("ratings");
        assert_eq!(
            rows.iter().map(|r| r.bot).collect::<Vec<_>>(),
            vec![true, false]
        );
        let record = store
            .player("robo", 10)
            .await
            .expect("player")
            .expect("known");
        assert!(record.ratings.iter().all(|r| r.bot), "{}", db.label);
        let entry = crate::ratings::ladder_entry(&ladder[1], crate::ratings::now());
        assert!(entry.bot && !entry.computer);
    }
}
