//! The storage of fair results and ratings: finished games rated once, in
//! the transaction of their result, as `game_rating` says; abandoners,
//! casual games, closed tables, ending notes, ladders, players' and
//! games' records; and a database of the version before ratings migrated
//! with its rows. On SQLite, and on PostgreSQL when the tests have a
//! cluster (see `tests.rs`).

use super::tests::{databases, finished, instance, new_table, row};
use super::*;
use game_rating::{Participant, starting};
use std::time::Duration;

const BSD: Category = Category::MilleBsd;

/// A rated table with these seats (`None`: a person's, owned by the
/// name), its game on and one move made.
async fn rated_table(store: &Store, seats: &[(Option<&str>, &str)]) -> TableId {
    let table = NewTable {
        levels: seats.iter().map(|(l, _)| l.map(String::from)).collect(),
        rated: true,
        ..new_table()
    };
    let id = store.create(table).await.expect("create");
    for (k, (level, name)) in seats.iter().enumerate() {
        if level.is_none() {
            store
                .claim(name, &format!("t-{name}"))
                .await
                .expect("claim");
            store
                .set_owner(id, k, Some((*name).into()))
                .await
                .expect("owner");
        }
    }
    store
        .set_status(id, TableStatus::Playing)
        .await
        .expect("status");
    store
        .append(id, 1, Some(0), "draw".into(), Some(1), false)
        .await
        .expect("move");
    id
}

/// A duel of two people: `winner` beat `loser`.
fn duel(winner: &str, loser: &str) -> Vec<SeatRow> {
    vec![row(winner, 5000, true, 0, 0), row(loser, 3000, false, 1, 1)]
}

/// What `game_rating::rate` makes of these results from these ratings.
fn expected(results: &[SeatRow], before: &[Rating]) -> Vec<Rating> {
    let players: Vec<Participant> = results
        .iter()
        .zip(before)
        .map(|(r, b)| Participant {
            rating: *b,
            side: r.side,
            place: r.place,
            abandoned: r.abandoned,
        })
        .collect();
    game_rating::rate(&players).expect("rated")
}

/// A second instance on the same database (PostgreSQL), or the same
/// store (SQLite has one server).
async fn other(store: &Store, url: &DatabaseUrl, id: &str) -> Store {
    if store.shared() {
        Store::open(url, instance(id, Duration::from_secs(30)))
            .await
            .expect("another instance")
            .0
    } else {
        store.clone()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_duel_moves_both_ratings_as_the_library_says() {
    for db in databases().await {
        let (store, _) = Store::open(&db.url, instance("a", Duration::from_secs(30)))
            .await
            .expect("open");
        let first = rated_table(&store, &[(None, "ann"), (None, "bob")]).await;
        let results = duel("ann", "bob");
        let start = [starting(BSD, "ann"), starting(BSD, "bob")];
        let after = expected(&results, &start);
        let changes = store
            .finish(first, finished(results, None, Some(BSD)))
            .await
            .expect("finish");
        assert_eq!(
            changes,
            vec![
                RatingChange {
                    name: "ann".into(),
                    before: start[0],
                    after: after[0]
                },
                RatingChange {
                    name: "bob".into(),
                    before: start[1],
                    after: after[1]
                },
            ],
            "{}",
            db.label
        );
        assert!(after[0].rating > 1500.0 && after[1].rating < 1500.0);
        let stored = store
            .ratings(BSD, vec!["bob".into(), "zed".into(), "ann".into()])
            .await
            .expect("ratings");
        assert_eq!(
            stored
                .iter()
                .map(|r| (r.name.as_str(), r.rating, r.games, r.wins, r.computer))
                .collect::<Vec<_>>(),
            vec![
                ("bob", after[1], 1, 0, false),
                ("ann", after[0], 1, 1, false)
            ],
            "{}: as asked, the unrated left out",
            db.label
        );
        // The return match: each comes with the stored rating, its
        // deviation grown by the moment since, and bob wins.
        let second = rated_table(&store, &[(None, "ann"), (None, "bob")]).await;
        let results = vec![row("ann", 2000, false, 0, 1), row("bob", 5000, true, 1, 0)];
        let changes = store
            .finish(second, finished(results.clone(), None, Some(BSD)))
            .await
            .expect("finish");
        assert_eq!(changes.len(), 2);
        for (change, stored) in changes.iter().zip([after[0], after[1]]) {
            assert_eq!(change.before.rating, stored.rating, "{}", db.label);
            assert!(change.before.deviation >= stored.deviation);
            assert!(change.before.deviation < stored.deviation + 1.0);
        }
        let befores: Vec<Rating> = changes.iter().map(|c| c.before).collect();
        let again = expected(&results, &befores);
        assert_eq!(changes[0].after, again[0], "{}", db.label);
        assert_eq!(changes[1].after, again[1], "{}", db.label);
        let ann = store.player("ann", 50).await.expect("player").expect("ann");
        assert_eq!(ann.ratings.len(), 1);
        assert_eq!((ann.ratings[0].games, ann.ratings[0].wins), (2, 1));
        assert_eq!(ann.ratings[0].rating, again[0]);
        assert_eq!(
            ann.history
                .iter()
                .map(|h| (h.table, h.before, h.after))
                .collect::<Vec<_>>(),
            vec![
                (first, start[0].rating, after[0].rating),
                (second, after[0].rating, again[0].rating)
            ],
            "{}",
            db.label
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoner_loses_rating_and_the_other_is_rated_normally() {
    for db in databases().await {
        let (store, _) = Store::open(&db.url, instance("a", Duration::from_secs(30)))
            .await
            .expect("open");
        let id = rated_table(&store, &[(None, "ann"), (None, "bob")]).await;
        // Ann left; the computer that took her seat won.
        let mut results = duel("ann", "bob");
        results[0].abandoned = true;
        let start = [starting(BSD, "ann"), starting(BSD, "bob")];
        let after = expected(&results, &start);
        let changes = store
            .finish(id, finished(results, None, Some(BSD)))
            .await
            .expect("finish");
        assert_eq!(changes[0].after, after[0], "{}", db.label);
        assert_eq!(changes[1].after, after[1], "{}", db.label);
        assert!(
            changes[0].after.rating < changes[0].before.rating,
            "{}: the abandoner loses rating",
            db.label
        );
        let ann = &store.ratings(BSD, vec!["ann".into()]).await.expect("r")[0];
        assert_eq!((ann.games, ann.wins), (1, 0), "an abandoned game is no win");
        let record = store.game(id).await.expect("game").expect("over");
        assert!(record.results[0].abandoned && !record.results[1].abandoned);
        assert_eq!(record.results[1].side, Some(1));
        assert_eq!(record.results[1].place, Some(1));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_casual_game_changes_no_rating() {
    for db in databases().await {
        let (store, _) = Store::open(&db.url, instance("a", Duration::from_secs(30)))
            .await
            .expect("open");
        // A table created casual, whatever category the end is given.
        let casual = store.create(new_table()).await.expect("create");
        let changes = store
            .finish(casual, finished(duel("ann", "bob"), None, Some(BSD)))
            .await
            .expect("finish");
        assert!(changes.is_empty(), "{}", db.label);
        // A rated table finished without a category.
        let rated = rated_table(&store, &[(None, "ann"), (None, "bob")]).await;
        let changes = store
            .finish(rated, finished(duel("ann", "bob"), None, None))
            .await
            .expect("finish");
        assert!(changes.is_empty(), "{}", db.label);
        assert!(
            store
                .ratings(BSD, vec!["ann".into(), "bob".into()])
                .await
                .expect("ratings")
                .is_empty(),
            "{}",
            db.label
        );
        assert!(store.ladder(BSD, 10).await.expect("ladder").is_empty());
        let ann = store.player("ann", 10).await.expect("player").expect("ann");
        assert!(ann.ratings.is_empty() && ann.history.is_empty());
        assert_eq!(ann.games.len(), 2, "{}: casual games are listed", db.label);
        assert!(ann.games[0].rated && !ann.games[1].rated);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_finished_twice_or_by_two_instances_is_rated_once() {
    for db in databases().await {
        let short = Duration::from_millis(300);
        let (a, _) = Store::open(&db.url, instance("a", short)).await.expect("a");
        // Twice by one instance, at once: one finishes, one finds it over.
        let id = rated_table(&a, &[(None, "ann"), (None, "bob")]).await;
        let game = finished(duel("ann", "bob"), None, Some(BSD));
        let (x, y) = tokio::join!(a.finish(id, game.clone()), a.finish(id, game.clone()));
        let over = [&x, &y]
            .iter()
            .filter(|r| matches!(r, Err(StoreError::Over(t)) if *t == id))
            .count();
        assert!(x.is_ok() ^ y.is_ok(), "{}: {x:?} {y:?}", db.label);
        assert_eq!(over, 1, "{}", db.label);
        assert!(matches!(
            a.finish(id, game.clone()).await,
            Err(StoreError::Over(_))
        ));
        assert!(matches!(
            a.close(id, Outcome::Abandoned, Vec::new()).await,
            Err(StoreError::Over(_))
        ));
        let ann = &a.ratings(BSD, vec!["ann".into()]).await.expect("r")[0];
        assert_eq!(ann.games, 1, "{}", db.label);
        if a.shared() {
            // a's lease runs out and b takes the table; both finish it at
            // once: only b's lease lets it through.
            let id = rated_table(&a, &[(None, "ann"), (None, "bob")]).await;
            tokio::time::sleep(Duration::from_millis(400)).await;
            let (b, _) = Store::open(&db.url, instance("b", short)).await.expect("b");
            b.take(id)
                .await
                .expect("take")
                .expect("taken")
                .expect("readable");
            let (x, y) = tokio::join!(a.finish(id, game.clone()), b.finish(id, game.clone()));
            assert!(matches!(x, Err(StoreError::LeaseLost(_))), "{x:?}");
            assert_eq!(y.expect("b finishes").len(), 2);
            let ann = &b.ratings(BSD, vec!["ann".into()]).await.expect("r")[0];
            assert_eq!(ann.games, 2, "the game was rated once");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_games_of_one_player_ending_at_once_both_count() {
    for db in databases().await {
        let (a, _) = Store::open(&db.url, instance("a", Duration::from_secs(30)))
            .await
            .expect("a");
        let b = other(&a, &db.url, "b").await;
        for round in 0..10 {
            let ann = format!("ann{round}");
            let (bob, cy) = (format!("bob{round}"), format!("cy{round}"));
            // Names new to the ratings and names rated already (whose rows
            // a careless update would overwrite), in either order of lock.
            let (x, y) = if round % 2 == 0 {
                (bob.clone(), cy.clone())
            } else {
                ("zoe".to_string(), "al".to_string())
            };
            let warm = round >= 4;
            if warm {
                let id = rated_table(&a, &[(None, &ann), (None, "warm")]).await;
                a.finish(id, finished(duel("warm", &ann), None, Some(BSD)))
                    .await
                    .expect("a first game");
            }
            let one = rated_table(&a, &[(None, &ann), (None, &x)]).await;
            let two = rated_table(&b, &[(None, &y), (None, &ann)]).await;
            let (r1, r2) = tokio::join!(
                a.finish(one, finished(duel(&ann, &x), None, Some(BSD))),
                b.finish(two, finished(duel(&y, &ann), None, Some(BSD)))
            );
            let (r1, r2) = (r1.expect("one"), r2.expect("two"));
            let stored = &a.ratings(BSD, vec![ann.clone()]).await.expect("r")[0];
            assert_eq!(
                (stored.games, stored.wins),
                (2 + u32::from(warm), 1),
                "{}: no lost update",
                db.label
            );
            // One of the two came first: the other started from its end.
            let c1 = r1.iter().find(|c| c.name == ann).expect("ann rated");
            let c2 = r2.iter().find(|c| c.name == ann).expect("ann rated");
            let (earlier, later) = if c2.before.rating == c1.after.rating {
                (c1, c2)
            } else {
                (c2, c1)
            };
            assert_eq!(later.before.rating, earlier.after.rating, "{}", db.label);
            assert_eq!(stored.rating.rating, later.after.rating, "{}", db.label);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_game_rates_a_computer_level_seated_twice_once() {
    for db in databases().await {
        let (store, _) = Store::open(&db.url, instance("a", Duration::from_secs(30)))
            .await
            .expect("open");
        let classic = game_rating::computer_name("classic");
        let id = rated_table(
            &store,
            &[
                (None, "ann"),
                (Some("classic"), classic.as_str()),
                (None, "bob"),
                (Some("classic"), classic.as_str()),
            ],
        )
        .await;
        let computer = |side, place, won| SeatRow {
            computer: true,
            ..row(&classic, 0, won, side, place)
        };
        let results = vec![
            row("ann", 5000, true, 0, 0),
            computer(1, 1, false),
            row("bob", 5000, true, 0, 0),
            computer(1, 1, false),
        ];
        let before: Vec<Rating> = results
            .iter()
            .map(|r| starting(Category::MilleClassic(4), &r.name))
            .collect();
        let after = expected(&results, &before);
        let changes = store
            .finish(id, finished(results, None, Some(Category::MilleClassic(4))))
            .await
            .expect("finish");
        assert_eq!(
            changes.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            vec!["ann", classic.as_str(), "bob"],
            "{}",
            db.label
        );
        assert_eq!(changes[0].after, after[0]);
        assert_eq!(changes[2].after, after[2]);
        // Both its seats lost alike: the mean is either.
        assert_eq!(changes[1].after.rating, after[1].rating);
        let ladder = store
            .ladder(Category::MilleClassic(4), 10)
            .await
            .expect("ladder");
        let entry = ladder.iter().find(|r| r.name == classic).expect("rated");
        assert!(entry.computer && entry.games == 1, "{}", db.label);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ladder_is_best_first_and_limited() {
    for db in databases().await {
        let (store, _) = Store::open(&db.url, instance("a", Duration::from_secs(30)))
            .await
            .expect("open");
        // ann beats everyone, bob beats cy and dan, cy beats dan.
        for (w, l) in [
            ("ann", "bob"),
            ("ann", "cy"),
            ("ann", "dan"),
            ("bob", "cy"),
            ("bob", "dan"),
            ("cy", "dan"),
        ] {
            let id = rated_table(&store, &[(None, w), (None, l)]).await;
            store
                .finish(id, finished(duel(w, l), None, Some(BSD)))
                .await
                .expect("finish");
        }
        let ladder = store.ladder(BSD, 3).await.expect("ladder");
        assert_eq!(
            ladder.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
            vec!["ann", "bob", "cy"],
            "{}",
            db.label
        );
        assert!(
            ladder
                .windows(2)
                .all(|w| w[0].rating.rating >= w[1].rating.rating)
        );
        assert_eq!((ladder[0].games, ladder[0].wins), (3, 3));
        assert_eq!(store.ladder(BSD, 10).await.expect("ladder").len(), 4);
        assert!(
            store
                .ladder(Category::CubesStandard, 10)
                .await
                .expect("ladder")
                .is_empty()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_record_has_ratings_history_and_last_games() {
    for db in databases().await {
        let (store, _) = Store::open(&db.url, instance("a", Duration::from_secs(30)))
            .await
            .expect("open");
        assert!(store.claim("ann", "t-ann").await.expect("claim"));
        assert_eq!(
            store
                .player("ann", 5)
                .await
                .expect("player")
                .map(|p| p.games.len()),
            Some(0),
            "{}: a name without games",
            db.label
        );
        assert!(store.player("nobody", 5).await.expect("player").is_none());
        let mut ids = Vec::new();
        for k in 0..4 {
            let id = rated_table(&store, &[(None, "ann"), (None, "bob")]).await;
            store
                .finish(id, finished(duel("ann", "bob"), None, Some(BSD)))
                .await
                .expect("finish");
            ids.push(id);
            if k == 0 {
                // Another category, and a private casual game.
                let cubes = rated_table(&store, &[(None, "ann"), (None, "cy")]).await;
                store
                    .finish(
                        cubes,
                        finished(duel("cy", "ann"), None, Some(Category::CubesStandard)),
                    )
                    .await
                    .expect("finish");
                ids.push(cubes);
                let private = store
                    .create(NewTable {
                        code: Some("abcde".into()),
                        ..new_table()
                    })
                    .await
                    .expect("create");
                store
                    .finish(private, finished(duel("ann", "cy"), None, None))
                    .await
                    .expect("finish");
                ids.push(private);
            }
        }
        let ann = store.player("ann", 3).await.expect("player").expect("ann");
        assert_eq!(
            ann.ratings
                .iter()
                .map(|r| (r.category, r.games, r.wins))
                .collect::<Vec<_>>(),
            vec![(Category::CubesStandard, 1, 0), (BSD, 4, 4)],
            "{}",
            db.label
        );
        assert_eq!(ann.history.len(), 5, "{}", db.label);
        assert!(ann.history.windows(2).all(|w| w[0].at <= w[1].at));
        assert_eq!(
            ann.history
                .iter()
                .filter(|h| h.category == BSD)
                .map(|h| h.table)
                .collect::<Vec<_>>(),
            vec![ids[0], ids[3], ids[4], ids[5]]
        );
        // The last three, newest first, each with every seat's result.
        assert_eq!(
            ann.games.iter().map(|g| g.table).collect::<Vec<_>>(),
            vec![ids[5], ids[4], ids[3]],
            "{}",
            db.label
        );
        let last = &ann.games[0];
        assert!(last.rated && !last.code_private && last.seats == 2);
        assert_eq!(
            last.results
                .iter()
                .map(|r| (r.seat, r.name.as_str(), r.won))
                .collect::<Vec<_>>(),
            vec![(0, "ann", true), (1, "bob", false)]
        );
        let all = store.player("ann", 50).await.expect("player").expect("ann");
        assert_eq!(all.games.len(), 6);
        let private = all
            .games
            .iter()
            .find(|g| g.table == ids[2])
            .expect("private");
        assert!(private.code_private && !private.rated, "{}", db.label);
        let bob = store.player("bob", 50).await.expect("player").expect("bob");
        assert_eq!(bob.games.len(), 4, "{}: a name only in results", db.label);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_record_marks_the_stand_ins_moves() {
    for db in databases().await {
        let (store, _) = Store::open(&db.url, instance("a", Duration::from_secs(30)))
            .await
            .expect("open");
        let id = rated_table(&store, &[(None, "ann"), (None, "bob")]).await;
        for (seq, stand_in) in [(2, true), (3, false), (4, true)] {
            store
                .append(id, seq, Some(1), "play".into(), None, stand_in)
                .await
                .expect("move");
        }
        assert!(
            store.game(id).await.expect("game").is_none(),
            "{}: not over yet",
            db.label
        );
        assert!(store.game(id + 1000).await.expect("game").is_none());
        let mut results = duel("ann", "bob");
        results[1].abandoned = true;
        store
            .finish(id, finished(results, None, Some(BSD)))
            .await
            .expect("finish");
        let record = store.game(id).await.expect("game").expect("over");
        assert_eq!(record.table.stand_in, vec![1, 3], "{}", db.label);
        assert_eq!(record.table.moves.len(), 4);
        assert_eq!(record.table.moves[1], (Some(1), "play".into(), None));
        assert!(record.table.rated && !record.private);
        assert_eq!(record.outcome, Some(Outcome::Finished));
        assert!(record.finished_at.is_some());
        assert_eq!(
            record.table.seats,
            vec![(None, Some("ann".into())), (None, Some("bob".into()))]
        );
        assert_eq!(
            record
                .results
                .iter()
                .map(|r| (r.name.as_str(), r.won, r.abandoned))
                .collect::<Vec<_>>(),
            vec![("ann", true, false), ("bob", false, true)]
        );
        // A move a stand-in made survives a takeover marked.
        let open = rated_table(&store, &[(None, "ann"), (None, "bob")]).await;
        store
            .append(open, 2, Some(1), "play".into(), None, true)
            .await
            .expect("move");
        store.release(open).await.expect("release");
        let taken = store
            .take(open)
            .await
            .expect("take")
            .expect("free")
            .expect("readable");
        assert_eq!(taken.stand_in, vec![1], "{}", db.label);
        assert!(taken.rated);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ending_notes_are_told_once() {
    for db in databases().await {
        let (a, _) = Store::open(&db.url, instance("a", Duration::from_secs(30)))
            .await
            .expect("open");
        let b = other(&a, &db.url, "b").await;
        let played = rated_table(&a, &[(None, "ann"), (None, "bob")]).await;
        let mut results = duel("bob", "ann");
        results[1].abandoned = true;
        let note = |name: &str, abandoned| EndingNote {
            name: name.into(),
            abandoned,
            summary: format!("{name}: the game ended"),
        };
        let changes = a
            .finish(
                played,
                FinishedGame {
                    results,
                    score: None,
                    category: Some(BSD),
                    endings: vec![note("ann", true)],
                    forfeit: None,
                },
            )
            .await
            .expect("finish");
        let closed = rated_table(&a, &[(None, "ann"), (None, "cy")]).await;
        a.close(
            closed,
            Outcome::Abandoned,
            vec![note("ann", false), note("cy", false)],
        )
        .await
        .expect("close");
        // Two connections of ann's, on two instances, ask at once.
        let (x, y) = tokio::join!(a.take_endings("ann"), b.take_endings("ann"));
        let mut notes = x.expect("take");
        notes.extend(y.expect("take"));
        notes.sort_by_key(|n| n.table);
        assert_eq!(notes.len(), 2, "{}: each told once", db.label);
        let ann = changes.iter().find(|c| c.name == "ann").expect("ann");
        assert_eq!(
            notes[0],
            EndingRow {
                table: played,
                game: GameKind::Mille,
                setup: serde_json::Value::Null,
                seats: 2,
                abandoned: true,
                summary: "ann: the game ended".into(),
                change: Some((ann.before, ann.after)),
            },
            "{}",
            db.label
        );
        assert_eq!((notes[1].table, notes[1].change), (closed, None));
        assert!(a.take_endings("ann").await.expect("take").is_empty());
        assert_eq!(a.take_endings("cy").await.expect("take").len(), 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_table_has_no_result_and_no_rating() {
    for db in databases().await {
        let short = Duration::from_millis(300);
        let (a, _) = Store::open(&db.url, instance("a", short)).await.expect("a");
        let id = rated_table(&a, &[(None, "ann"), (None, "bob")]).await;
        a.close(id, Outcome::Abandoned, Vec::new())
            .await
            .expect("close");
        let record = a.game(id).await.expect("game").expect("over");
        assert_eq!(record.outcome, Some(Outcome::Abandoned), "{}", db.label);
        assert!(record.results.is_empty());
        assert!(matches!(
            a.finish(id, finished(duel("ann", "bob"), None, Some(BSD)))
                .await,
            Err(StoreError::Over(_))
        ));
        assert!(
            a.ratings(BSD, vec!["ann".into(), "bob".into()])
                .await
                .expect("ratings")
                .is_empty(),
            "{}",
            db.label
        );
        let ann = a.player("ann", 10).await.expect("player");
        assert!(ann.is_none_or(|p| p.games.is_empty()));
        assert!(a.seats_of("ann").await.expect("seats").is_empty());
        let unstarted = a.create(new_table()).await.expect("create");
        a.close(unstarted, Outcome::Unstarted, Vec::new())
            .await
            .expect("close");
        assert_eq!(
            a.game(unstarted)
                .await
                .expect("game")
                .expect("over")
                .outcome,
            Some(Outcome::Unstarted)
        );
        if a.shared() {
            // Only the lease's holder closes a table.
            let other = rated_table(&a, &[(None, "ann"), (None, "bob")]).await;
            tokio::time::sleep(Duration::from_millis(400)).await;
            let (b, _) = Store::open(&db.url, instance("b", short)).await.expect("b");
            b.take(other)
                .await
                .expect("take")
                .expect("taken")
                .expect("readable");
            assert!(matches!(
                a.close(other, Outcome::Broken, Vec::new()).await,
                Err(StoreError::LeaseLost(_))
            ));
        }
    }
}

/// Rows as the version before ratings held them: a player, a finished
/// table with results, one closed before it began, and one being played.
const VERSION_3_ROWS: &str = "
INSERT INTO players (name, token_hash, created_at, seen_at) VALUES ('ann', 'h', 1, 1);
INSERT INTO tables (id, game, setup, seats, seed, code, status, created_at, finished_at, lease_owner, lease_until)
  VALUES (1, 'mille', 'null', 2, 7, NULL, 'over', 1, 2, 'old', 0),
         (2, 'mille', 'null', 2, 8, NULL, 'over', 1, NULL, NULL, NULL),
         (3, 'cubes', 'null', 2, 9, NULL, 'playing', 1, NULL, NULL, NULL);
INSERT INTO seats (table_id, seat, level, owner) VALUES
  (1, 0, NULL, 'ann'), (1, 1, 'classic', NULL),
  (2, 0, NULL, 'ann'), (2, 1, 'classic', NULL),
  (3, 0, NULL, 'ann'), (3, 1, 'steady', NULL);
INSERT INTO moves (table_id, seq, seat, action, client_id) VALUES
  (1, 1, 0, '\"draw\"', 1), (3, 1, 0, '\"roll\"', 1);
INSERT INTO results (table_id, seat, name, computer, score, won) VALUES
  (1, 0, 'ann', FALSE, 5000, TRUE), (1, 1, 'classic', TRUE, 3000, FALSE);
INSERT INTO scores (game, finished_at, record) VALUES ('mille', 2, '{}');
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_3_database_keeps_its_rows() {
    for db in databases().await {
        let old: Vec<&Migration> = MIGRATIONS.iter().take(3).collect();
        match &db.url {
            DatabaseUrl::Sqlite(path) => {
                let sql: Vec<&str> = old.iter().map(|m| m.sqlite).collect();
                let conn = game_store::open_db_private(path, &sql).expect("version 3");
                conn.execute_batch(VERSION_3_ROWS).expect("rows");
            }
            DatabaseUrl::Postgres(url) => {
                let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                    .await
                    .expect("connect");
                tokio::spawn(connection);
                let mut sql = String::from(
                    "CREATE TABLE schema_version (version BIGINT NOT NULL); \
                     INSERT INTO schema_version (version) VALUES (3);",
                );
                for m in &old {
                    sql.push_str(m.postgres);
                }
                sql.push_str(VERSION_3_ROWS);
                client.batch_execute(&sql).await.expect("version 3 rows");
            }
        }
        let (store, mut taken) = Store::open(&db.url, instance("a", Duration::from_secs(30)))
            .await
            .expect("migrated");
        if store.shared() {
            taken = store.take_over(10, Vec::new()).await.expect("take");
        }
        assert_eq!(taken.len(), 1, "{}", db.label);
        let playing = taken.remove(0).expect("readable");
        assert_eq!((playing.id, playing.seed), (3, 9));
        assert!(!playing.rated && playing.stand_in.is_empty());
        assert_eq!(playing.moves, vec![(Some(0), "roll".into(), Some(1))]);
        let done = store.game(1).await.expect("game").expect("over");
        assert_eq!(done.outcome, Some(Outcome::Finished), "{}", db.label);
        assert!(!done.table.rated && done.table.stand_in.is_empty());
        assert_eq!(
            done.results
                .iter()
                .map(|r| (r.name.as_str(), r.score, r.won, r.abandoned, r.side))
                .collect::<Vec<_>>(),
            vec![
                ("ann", 5000, true, false, None),
                ("classic", 3000, false, false, None)
            ]
        );
        assert_eq!(
            store.game(2).await.expect("game").expect("over").outcome,
            Some(Outcome::Unstarted)
        );
        assert_eq!(
            store.scores(GameKind::Mille).await.expect("scores"),
            vec!["{}".to_string()]
        );
        assert!(
            !store.claim("ann", "another").await.expect("claim"),
            "{}: ann's name is still taken",
            db.label
        );
        let ann = store.player("ann", 10).await.expect("player").expect("ann");
        assert_eq!(ann.games.len(), 1, "{}", db.label);
        // The new program goes on with it: the table being played ends,
        // rated as its creator chose (casual).
        store
            .finish(
                3,
                finished(duel("ann", "bob"), None, Some(Category::CubesStandard)),
            )
            .await
            .expect("finish");
        assert!(
            store
                .ladder(Category::CubesStandard, 10)
                .await
                .expect("ladder")
                .is_empty()
        );
    }
}
