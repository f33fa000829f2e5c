//! The storage suite: every test runs on SQLite, and on PostgreSQL when
//! `TABLE_SERVER_TEST_POSTGRES` names a cluster to make databases in
//! (`.ci/postgres start` makes one; `.ci/run` requires it, by setting
//! `TABLE_SERVER_REQUIRE_POSTGRES`).

use super::*;
use std::time::Duration;

/// A database to test on, removed at the end.
pub(super) struct Db {
    pub(super) url: DatabaseUrl,
    pub(super) label: &'static str,
    _dir: Option<tempfile::TempDir>,
}

/// The PostgreSQL cluster's address, if the tests have one.
pub(super) fn cluster() -> Option<String> {
    let url = std::env::var("TABLE_SERVER_TEST_POSTGRES")
        .ok()
        .filter(|u| !u.is_empty());
    if url.is_none() && std::env::var_os("TABLE_SERVER_REQUIRE_POSTGRES").is_some() {
        panic!("TABLE_SERVER_REQUIRE_POSTGRES is set and TABLE_SERVER_TEST_POSTGRES is not");
    }
    url
}

/// A new, empty database in the test cluster: its URL.
pub(crate) async fn fresh_postgres(cluster: &str) -> String {
    let name = format!("t_{}", crate::conn::secret(6).expect("random"));
    create_database(cluster, &name).await.expect("a database")
}

/// SQLite, and PostgreSQL if there is a cluster.
pub(super) async fn databases() -> Vec<Db> {
    let dir = tempfile::tempdir().expect("dir");
    let mut dbs = vec![Db {
        url: DatabaseUrl::Sqlite(dir.path().join("server.db")),
        label: "sqlite",
        _dir: Some(dir),
    }];
    if let Some(cluster) = cluster() {
        dbs.push(Db {
            url: DatabaseUrl::Postgres(fresh_postgres(&cluster).await),
            label: "postgres",
            _dir: None,
        });
    }
    dbs
}

pub(super) fn instance(id: &str, lease: Duration) -> Instance {
    Instance {
        id: id.into(),
        address: format!("ws://{id}.example:8780"),
        lease,
    }
}

/// The store of `db`, as instance "a" (its restored tables left out).
pub(super) async fn open(db: &Db) -> Store {
    Store::open(&db.url, instance("a", Duration::from_secs(30)))
        .await
        .expect("open")
        .0
}

/// Starts the game at table `id`: playing, with seat 0's first move (a
/// draw) in its log.
pub(super) async fn started(store: &Store, id: TableId) {
    store
        .set_status(id, TableStatus::Playing)
        .await
        .expect("status");
    store
        .append(id, 1, Some(0), "draw".into(), Some(1), false)
        .await
        .expect("move");
}

pub(super) fn new_table() -> NewTable {
    NewTable {
        game: GameKind::Mille,
        setup: serde_json::Value::Null,
        seed: 7,
        code: None,
        levels: vec![None, Some("classic".into())],
        rated: false,
        arena: None,
        bots_allowed: false,
        invited: Vec::new(),
    }
}

/// A person's result (side, place).
pub(super) fn row(name: &str, score: i64, won: bool, side: usize, place: usize) -> SeatRow {
    SeatRow {
        name: name.into(),
        computer: false,
        score,
        won,
        side,
        place,
        abandoned: false,
    }
}

/// A finished game without notes.
pub(super) fn finished(
    results: Vec<SeatRow>,
    score: Option<(GameKind, String)>,
    category: Option<Category>,
) -> FinishedGame {
    FinishedGame {
        results,
        score,
        category,
        endings: Vec::new(),
        forfeit: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_moves_and_names_survive_a_reopen() {
    for db in databases().await {
        let lease = Duration::from_secs(30);
        let (store, tables) = Store::open(&db.url, instance("a", lease))
            .await
            .expect("open");
        assert!(tables.is_empty(), "{}", db.label);
        assert!(store.claim("ann", "secret-a").await.expect("claim"));
        assert!(!store.claim("ann", "secret-b").await.expect("claim"));
        assert_eq!(
            store.name_of("secret-a").await.expect("name"),
            Some("ann".to_string())
        );
        assert_eq!(store.name_of("secret-b").await.expect("name"), None);
        let id = store.create(new_table()).await.expect("create");
        store
            .set_owner(id, 0, Some("ann".into()))
            .await
            .expect("owner");
        store
            .set_status(id, TableStatus::Playing)
            .await
            .expect("status");
        let draw = serde_json::Value::from("draw");
        store
            .append(id, 1, Some(0), draw.clone(), Some(5), false)
            .await
            .expect("move");
        let twice = store
            .append(id, 1, Some(0), draw.clone(), Some(5), false)
            .await;
        assert!(
            twice.is_err(),
            "{}: a sequence number is taken once",
            db.label
        );
        store
            .append(id, 2, None, serde_json::json!({"deal": 1}), None, false)
            .await
            .expect("a host move");
        assert_eq!(
            store.seats_of("ann").await.expect("seats"),
            vec![SeatRef {
                table: id,
                game: GameKind::Mille,
                seat: 0
            }]
        );
        drop(store);
        // The next start: a new instance. SQLite's only server takes every
        // table at once; on PostgreSQL the lease is released first, as a
        // stopping instance's table would be.
        let (store, tables) = Store::open(&db.url, instance("b", lease))
            .await
            .expect("reopen");
        let mut tables: Vec<StoredTable> =
            tables.into_iter().map(|t| t.expect("readable")).collect();
        if store.shared() {
            assert!(tables.is_empty());
            assert!(
                store
                    .take_over(10, Vec::new())
                    .await
                    .expect("take")
                    .is_empty(),
                "{}: a held lease is not taken",
                db.label
            );
            let (old, _) = Store::open(&db.url, instance("a", lease))
                .await
                .expect("the old instance");
            old.release(id).await.expect("release");
            tables = store
                .take_over(10, Vec::new())
                .await
                .expect("take")
                .into_iter()
                .map(|t| t.expect("readable"))
                .collect();
        }
        assert_eq!(tables.len(), 1, "{}", db.label);
        assert_eq!(tables[0].seed, 7);
        assert_eq!(
            tables[0].seats,
            vec![(None, Some("ann".into())), (Some("classic".into()), None)]
        );
        assert_eq!(
            tables[0].moves,
            vec![
                (Some(0), serde_json::Value::from("draw"), Some(5)),
                (None, serde_json::json!({"deal": 1}), None)
            ]
        );
        store
            .finish(
                id,
                finished(
                    vec![row("ann", 700, true, 0, 0)],
                    Some((GameKind::Mille, "{\"n\":1}".into())),
                    None,
                ),
            )
            .await
            .expect("finish");
        assert_eq!(
            store.scores(GameKind::Mille).await.expect("scores"),
            vec!["{\"n\":1}".to_string()],
            "{}: the score comes with the results",
            db.label
        );
        assert!(store.seats_of("ann").await.expect("seats").is_empty());
        assert_eq!(
            store.place(id, "ann").await.expect("place"),
            Place::Over {
                code: None,
                seated: true
            }
        );
        assert_eq!(
            store.place(id, "zed").await.expect("place"),
            Place::Over {
                code: None,
                seated: false
            }
        );
        assert_eq!(
            store.place(id + 1000, "ann").await.expect("place"),
            Place::Nowhere
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_after_a_takeover_is_refused_and_the_log_is_whole() {
    for db in databases().await {
        let short = Duration::from_millis(400);
        let (a, _) = Store::open(&db.url, instance("a", short)).await.expect("a");
        let id = a.create(new_table()).await.expect("create");
        a.append(id, 1, Some(0), "draw".into(), Some(1), false)
            .await
            .expect("a writes");
        let (b, _) = Store::open(&db.url, instance("b", short)).await.expect("b");
        if b.shared() {
            assert_eq!(
                b.place(id, "ann").await.expect("place"),
                Place::Held {
                    instance: "a".into(),
                    address: "ws://a.example:8780".into()
                }
            );
            assert!(b.take(id).await.expect("take").is_none(), "a holds it");
            // a renews: the lease outlives its first term.
            tokio::time::sleep(Duration::from_millis(250)).await;
            assert_eq!(a.renew(vec![id]).await.expect("renew"), vec![id]);
            tokio::time::sleep(Duration::from_millis(250)).await;
            assert!(b.take(id).await.expect("take").is_none(), "renewed");
            // a stops renewing (it died, or cannot reach the database).
            tokio::time::sleep(Duration::from_millis(500)).await;
            assert_eq!(b.place(id, "ann").await.expect("place"), Place::Free);
            let taken = b
                .take(id)
                .await
                .expect("take")
                .expect("b takes it over")
                .expect("readable");
            assert_eq!(taken.moves.len(), 1, "the acknowledged move is there");
        }
        // a's next move raced the takeover: refused, never written.
        let late = a
            .append(id, 2, Some(0), "late".into(), Some(2), false)
            .await;
        assert!(
            matches!(late, Err(StoreError::LeaseLost(t)) if t == id),
            "{}: {late:?}",
            db.label
        );
        assert!(matches!(
            a.set_owner(id, 0, Some("eve".into())).await,
            Err(StoreError::LeaseLost(_))
        ));
        assert!(matches!(
            a.set_status(id, TableStatus::Over).await,
            Err(StoreError::LeaseLost(_))
        ));
        assert!(matches!(
            a.finish(
                id,
                finished(Vec::new(), Some((GameKind::Mille, "{}".into())), None)
            )
            .await,
            Err(StoreError::LeaseLost(_))
        ));
        assert!(
            b.scores(GameKind::Mille).await.expect("scores").is_empty(),
            "{}: no score from a refused end",
            db.label
        );
        assert!(a.renew(vec![id]).await.expect("renew").is_empty());
        b.append(id, 2, Some(0), "play".into(), Some(2), false)
            .await
            .expect("b writes");
        b.release(id).await.expect("release");
        assert!(
            b.take_over(10, vec![id]).await.expect("take").is_empty(),
            "{}: a table skipped is not taken",
            db.label
        );
        let again = b
            .take(id)
            .await
            .expect("take")
            .expect("free again")
            .expect("readable");
        assert_eq!(
            again.moves,
            vec![
                (Some(0), serde_json::Value::from("draw"), Some(1)),
                (Some(0), serde_json::Value::from("play"), Some(2))
            ],
            "{}",
            db.label
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lobby_lines_are_seen_by_the_other_instances() {
    for db in databases().await {
        let lease = Duration::from_secs(30);
        let (a, _) = Store::open(&db.url, instance("a", lease)).await.expect("a");
        let id = a.create(new_table()).await.expect("create");
        let line = TableSummary {
            id,
            game: GameKind::Mille,
            ruleset: "bsd, 2 players".into(),
            setup: serde_json::Value::Null,
            seats: Vec::new(),
            status: TableStatus::Waiting,
            private: false,
            spectators: 0,
            seq: 0,
            rated: false,
            arena: None,
            bots: false,
        };
        let text = serde_json::to_string(&line).expect("json");
        a.publish(vec![(id, text)]).await.expect("publish");
        assert!(a.lobby().await.expect("lobby").is_empty(), "its own lines");
        if a.shared() {
            let (b, _) = Store::open(&db.url, instance("b", lease)).await.expect("b");
            assert_eq!(b.lobby().await.expect("lobby"), vec![line]);
            // Only the holder of the lease writes the line.
            b.publish(vec![(id, "{}".into())]).await.expect("publish");
            assert_eq!(b.lobby().await.expect("lobby").len(), 1);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_name_is_given_once_even_to_two_instances_at_once() {
    for db in databases().await {
        let lease = Duration::from_secs(30);
        let (a, _) = Store::open(&db.url, instance("a", lease)).await.expect("a");
        let b = if a.shared() {
            Store::open(&db.url, instance("b", lease))
                .await
                .expect("b")
                .0
        } else {
            a.clone()
        };
        for k in 0..20 {
            let name = format!("p{k}");
            let (tx, ty) = (format!("x{k}"), format!("y{k}"));
            let (x, y) = tokio::join!(a.claim(&name, &tx), b.claim(&name, &ty));
            let (x, y) = (x.expect("claim"), y.expect("claim"));
            assert!(x ^ y, "{}: exactly one of the two gets {name}", db.label);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_newer_than_the_program_is_refused() {
    for db in databases().await {
        let store = open(&db).await;
        drop(store);
        match &db.url {
            DatabaseUrl::Sqlite(path) => {
                let conn = rusqlite::Connection::open(path).expect("open");
                conn.pragma_update(None, "user_version", 99)
                    .expect("version");
            }
            DatabaseUrl::Postgres(url) => {
                let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                    .await
                    .expect("connect");
                tokio::spawn(connection);
                client
                    .batch_execute("UPDATE schema_version SET version = 99")
                    .await
                    .expect("version");
            }
        }
        let refused = Store::open(&db.url, instance("b", Duration::from_secs(30))).await;
        match refused {
            Err(e @ StoreError::TooNew { found: 99, .. }) => {
                assert!(e.to_string().contains("newer"), "{e}");
            }
            Err(e) => panic!("{}: {e}", db.label),
            Ok(_) => panic!("{}: a newer database was opened", db.label),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_backends_have_the_same_tables_and_columns() {
    let Some(cluster) = cluster() else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("server.db");
    let url = fresh_postgres(&cluster).await;
    let lease = Duration::from_secs(30);
    Store::open(&DatabaseUrl::Sqlite(path.clone()), instance("a", lease))
        .await
        .expect("sqlite");
    Store::open(&DatabaseUrl::Postgres(url.clone()), instance("a", lease))
        .await
        .expect("postgres");
    let conn = rusqlite::Connection::open(&path).expect("open");
    let mut sqlite: Vec<(String, String)> = conn
        .prepare(
            "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p \
             WHERE m.type = 'table' ORDER BY 1, 2",
        )
        .expect("prepare")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("query")
        .collect::<rusqlite::Result<_>>()
        .expect("rows");
    sqlite.sort();
    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(connection);
    let mut postgres: Vec<(String, String)> = client
        .query(
            "SELECT table_name::TEXT, column_name::TEXT FROM information_schema.columns \
             WHERE table_schema = 'public' AND table_name != 'schema_version' ORDER BY 1, 2",
            &[],
        )
        .await
        .expect("columns")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    postgres.sort();
    assert!(sqlite.len() > 20, "{sqlite:?}");
    assert_eq!(sqlite, postgres);
}

#[test]
fn database_addresses_are_read_or_refused_with_a_reason() {
    assert_eq!(
        DatabaseUrl::parse("sqlite:/var/lib/g/server.db").expect("sqlite"),
        DatabaseUrl::Sqlite("/var/lib/g/server.db".into())
    );
    assert_eq!(
        DatabaseUrl::parse("sqlite://rel/server.db").expect("sqlite"),
        DatabaseUrl::Sqlite("rel/server.db".into())
    );
    assert!(matches!(
        DatabaseUrl::parse("postgres://app@127.0.0.1:5432/games"),
        Ok(DatabaseUrl::Postgres(_))
    ));
    for bad in [
        "",
        "sqlite:",
        "mysql://x",
        "server.db",
        "postgres://a@b:notaport/x",
    ] {
        let e = DatabaseUrl::parse(bad).expect_err(bad);
        assert!(!e.to_string().is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sqlite_job_that_fails_halfway_leaves_nothing() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("server.db");
    let (db, _) =
        sqlite::Sqlite::open(&path, &instance("a", Duration::from_secs(30))).expect("open");
    let half = db
        .call(|t| {
            t.execute(
                "INSERT INTO players (name, token_hash, created_at) VALUES ('eve', 'x', 0)",
                [],
            )?;
            t.execute("INSERT INTO nowhere VALUES (1)", [])?;
            Ok(())
        })
        .await;
    assert!(half.is_err());
    // A job of the same batch or the next is unaffected.
    assert!(
        db.claim("ann".into(), hash_token("a"), None)
            .await
            .expect("claim")
    );
    assert!(
        db.claim("eve".into(), hash_token("e"), None)
            .await
            .expect("eve is free")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_are_stored_hashed() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("server.db");
    let (store, _) = Store::open(
        &DatabaseUrl::Sqlite(path.clone()),
        instance("a", Duration::from_secs(30)),
    )
    .await
    .expect("open");
    assert!(store.claim("bob", "the-token").await.expect("claim"));
    let conn = rusqlite::Connection::open(&path).expect("open");
    let stored: String = conn
        .query_row("SELECT token_hash FROM players", [], |r| r.get(0))
        .expect("row");
    assert_ne!(stored, "the-token");
    assert_eq!(stored, hash_token("the-token"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_table_holds_up_no_other_takeover() {
    for db in databases().await {
        let short = Duration::from_millis(200);
        let (a, _) = Store::open(&db.url, instance("a", short)).await.expect("a");
        let bad = a.create(new_table()).await.expect("create");
        let good = a.create(new_table()).await.expect("create");
        a.append(bad, 1, Some(0), "draw".into(), Some(1), false)
            .await
            .expect("move");
        // A gap in the log, as a damaged database might have.
        a.append(bad, 3, Some(0), "draw".into(), Some(2), false)
            .await
            .expect("move");
        a.release(bad).await.expect("release");
        a.release(good).await.expect("release");
        let (b, mut taken) = Store::open(&db.url, instance("b", short)).await.expect("b");
        if b.shared() {
            taken = b.take_over(10, Vec::new()).await.expect("take");
        }
        taken.sort_by_key(|t| match t {
            Ok(t) => t.id,
            Err((id, _)) => *id,
        });
        assert_eq!(taken.len(), 2, "{}", db.label);
        assert!(matches!(&taken[0], Err((id, why)) if *id == bad && why.contains("missing")));
        assert!(matches!(&taken[1], Ok(t) if t.id == good));
        if b.shared() {
            // b's own leases that ran out are not taken back by its scan
            // (another instance may have its players by now).
            tokio::time::sleep(Duration::from_millis(300)).await;
            assert!(b.take_over(10, Vec::new()).await.expect("take").is_empty());
            // b restarts at the same address: its old leases are free at
            // once, and nobody is sent to its old self.
            let again = Instance {
                id: "b2".into(),
                ..instance("b", Duration::from_secs(30))
            };
            let (b2, _) = Store::open(&db.url, again).await.expect("b again");
            assert_eq!(b2.place(good, "ann").await.expect("place"), Place::Free);
            assert_eq!(b2.take_over(10, vec![bad]).await.expect("take").len(), 1);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_racing_a_takeover_are_either_in_the_log_or_refused() {
    for db in databases().await {
        let short = Duration::from_millis(300);
        let (a, _) = Store::open(&db.url, instance("a", short)).await.expect("a");
        let id = a.create(new_table()).await.expect("create");
        // a writes as fast as it can, and stops at its first refusal.
        let writer = tokio::spawn(async move {
            let mut written = 0u64;
            for seq in 1..=5_000u64 {
                match a
                    .append(id, seq, Some(0), "draw".into(), Some(seq), false)
                    .await
                {
                    Ok(()) => written = seq,
                    Err(StoreError::LeaseLost(_)) => return (written, true),
                    Err(e) => panic!("{e}"),
                }
            }
            (written, false)
        });
        // b takes the table over while a writes (a renews nothing).
        tokio::time::sleep(Duration::from_millis(400)).await;
        let (b, opened) = Store::open(&db.url, instance("b", short)).await.expect("b");
        let taken = if b.shared() {
            // A row locked by a write this moment is skipped: b tries
            // again, as its lease round does.
            let mut tries = 0;
            loop {
                if let Some(t) = b.take(id).await.expect("take") {
                    break t.expect("readable");
                }
                tries += 1;
                assert!(tries < 500, "the lapsed lease is never taken");
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        } else {
            opened.into_iter().next().expect("taken").expect("readable")
        };
        let (written, refused) = writer.await.expect("the writer");
        assert!(refused, "{}: a's writes stop at the takeover", db.label);
        assert_eq!(
            taken.moves.len() as u64,
            written,
            "{}: every move a wrote is in the log b read, and no other",
            db.label
        );
        assert!(written > 0, "{}: a wrote before the takeover", db.label);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sweep_lets_unused_names_and_unstarted_tables_go_and_keeps_history() {
    for db in databases().await {
        let store = open(&db).await;
        for name in ["idle", "played", "seated", "waiter"] {
            assert!(
                store
                    .claim(name, &format!("t-{name}"))
                    .await
                    .expect("claim")
            );
        }
        // A finished game: "played" has a result.
        let finished = store.create(new_table()).await.expect("create");
        store
            .set_owner(finished, 0, Some("played".into()))
            .await
            .expect("owner");
        store
            .append(
                finished,
                1,
                Some(0),
                serde_json::Value::from("draw"),
                Some(1),
                false,
            )
            .await
            .expect("move");
        store
            .finish(
                finished,
                self::finished(vec![row("played", 700, true, 0, 0)], None, None),
            )
            .await
            .expect("finish");
        // A game on: "seated" holds a seat.
        let on = store.create(new_table()).await.expect("create");
        store
            .set_owner(on, 0, Some("seated".into()))
            .await
            .expect("owner");
        store
            .set_status(on, TableStatus::Playing)
            .await
            .expect("status");
        // A table that closed before its game started: "waiter" sat there.
        let unstarted = store.create(new_table()).await.expect("create");
        store
            .set_owner(unstarted, 0, Some("waiter".into()))
            .await
            .expect("owner");
        store
            .set_status(unstarted, TableStatus::Over)
            .await
            .expect("status");
        // Nothing is old enough yet.
        let now = super::now();
        assert_eq!(
            store.sweep(now - 60, now - 60).await.expect("sweep"),
            Swept::default(),
            "{}",
            db.label
        );
        // Everything is, a moment later.
        let swept = store.sweep(now + 10, now + 10).await.expect("sweep");
        assert_eq!(
            swept,
            Swept {
                names: 2,
                tables: 1
            },
            "{}",
            db.label
        );
        for (name, kept) in [
            ("idle", false),
            ("waiter", false),
            ("played", true),
            ("seated", true),
        ] {
            let owner = store.name_of(&format!("t-{name}")).await.expect("name");
            assert_eq!(owner.is_some(), kept, "{}: {name}", db.label);
        }
        assert_eq!(
            store.place(unstarted, "ann").await.expect("place"),
            Place::Nowhere,
            "{}",
            db.label
        );
        assert!(matches!(
            store.place(finished, "ann").await.expect("place"),
            Place::Over { .. }
        ));
        // A name seen lately is kept whatever else.
        assert!(store.claim("fresh", "t-fresh").await.expect("claim"));
        store.seen("fresh").await.expect("seen");
        let later = store.sweep(now - 5, now - 5).await.expect("sweep");
        assert_eq!(later.names, 0, "{}", db.label);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_out_name_with_a_game_is_kept_for_nobody() {
    for db in databases().await {
        let store = open(&db).await;
        assert!(store.claim("ann", "t-ann").await.expect("claim"));
        assert!(store.claim("bob", "t-bob").await.expect("claim"));
        let table = store.create(new_table()).await.expect("create");
        store
            .set_owner(table, 0, Some("ann".into()))
            .await
            .expect("owner");
        store
            .finish(
                table,
                finished(vec![row("ann", 700, true, 0, 0)], None, None),
            )
            .await
            .expect("finish");
        // A wrong token changes nothing.
        assert!(
            !store
                .replace_token("ann", "t-bob", "x")
                .await
                .expect("replace")
        );
        assert!(!store.sign_out("ann", "t-bob").await.expect("sign out"));
        assert_eq!(
            store.name_of("t-ann").await.expect("name"),
            Some("ann".into())
        );
        // Ann has a game: her name stays hers, and nobody can sign in.
        assert!(
            !store.sign_out("ann", "t-ann").await.expect("sign out"),
            "{}",
            db.label
        );
        assert_eq!(store.name_of("t-ann").await.expect("name"), None);
        assert!(
            !store.claim("ann", "t-thief").await.expect("claim"),
            "{}",
            db.label
        );
        // Bob has none: his name is let go.
        assert!(
            store.sign_out("bob", "t-bob").await.expect("sign out"),
            "{}",
            db.label
        );
        assert!(store.claim("bob", "t-new").await.expect("claim"));
    }
}

#[test]
fn a_password_is_never_repeated() {
    let e = DatabaseUrl::parse("postgress://games:SECRETPW@db.internal/games")
        .expect_err("a mistyped scheme");
    assert!(!e.to_string().contains("SECRETPW"), "{e}");
    assert!(e.to_string().contains("postgress://"), "{e}");
    let e = DatabaseUrl::parse("games:SECRETPW@db.internal").expect_err("no scheme");
    assert!(!e.to_string().contains("SECRETPW"), "{e}");
    let url = DatabaseUrl::parse("postgres://games:SECRETPW@db.internal:5433/games").expect("url");
    let shown = url.to_string();
    assert!(
        !shown.contains("SECRETPW") && shown.contains("db.internal:5433"),
        "{shown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_takes_its_password_apart_and_honours_sslmode() {
    let Some(cluster) = cluster() else {
        return;
    };
    let url = fresh_postgres(&cluster).await;
    // The test cluster trusts every local connection: the password given
    // apart is sent, and does not stop the store from opening.
    let secrets = PgSecrets {
        password: Some("SECRETPW".into()),
        ca: None,
    };
    let (store, _) = Store::open_with(
        &DatabaseUrl::Postgres(url.clone()),
        instance("a", Duration::from_secs(30)),
        &secrets,
    )
    .await
    .expect("open");
    drop(store);
    // The cluster speaks no TLS: a URL that requires it is refused, and
    // the refusal does not show the password.
    let required = format!("{url}?sslmode=require");
    let e = Store::open_with(
        &DatabaseUrl::Postgres(required),
        instance("b", Duration::from_secs(30)),
        &secrets,
    )
    .await
    .err()
    .expect("TLS is required and the cluster has none");
    let text = e.to_string();
    assert!(!text.contains("SECRETPW"), "{text}");
    assert!(text.to_lowercase().contains("tls"), "{text}");
}
