//! The server's database: names and their hashed tokens, tables, seats,
//! every game's action log and results, in SQLite (write-ahead log,
//! `synchronous=FULL`) in the data directory.
//!
//! One writer thread owns the connection. Tables send it work and await
//! the answer; it runs whatever has queued up in one transaction and
//! answers only after that transaction is committed (group commit), so a
//! move is on disk before anybody is told of it, and a thousand tables do
//! not pay a thousand flushes a second.

use rusqlite::{Connection, OptionalExtension, Transaction, params};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::mpsc as std_mpsc;
use table_protocol::{GameKind, SeatRef, TableId, TableStatus};
use tokio::sync::oneshot;

/// What can go wrong with the database.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Opening or migrating the database failed.
    #[error(transparent)]
    Open(#[from] game_store::StoreError),
    /// A statement failed.
    #[error("the server's database {path} failed: {source}")]
    Sql {
        /// The database.
        path: PathBuf,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// The writer thread is gone (the server is stopping).
    #[error("the server's database is closed")]
    Closed,
    /// A stored row the server cannot read back.
    #[error("the server's database has a row it cannot read: {0}")]
    Corrupt(String),
}

const MIGRATIONS: &[&str] = &["
CREATE TABLE players (
    name TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
);
CREATE TABLE tables (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    setup TEXT NOT NULL,
    seats INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    code TEXT,
    status TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    finished_at INTEGER
);
CREATE TABLE seats (
    table_id INTEGER NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    level TEXT,
    owner TEXT REFERENCES players(name),
    PRIMARY KEY (table_id, seat)
);
CREATE INDEX seats_by_owner ON seats(owner);
CREATE TABLE moves (
    table_id INTEGER NOT NULL REFERENCES tables(id),
    seq INTEGER NOT NULL,
    seat INTEGER,
    action TEXT NOT NULL,
    client_id INTEGER,
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE results (
    table_id INTEGER NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    computer INTEGER NOT NULL,
    score INTEGER NOT NULL,
    won INTEGER NOT NULL,
    PRIMARY KEY (table_id, seat)
);
"];

type Reply = Box<dyn FnOnce(Result<(), StoreError>) + Send>;
type Job = Box<dyn FnOnce(&Transaction<'_>, &Path) -> Reply + Send>;

/// The handle tables and connections use; cloning it is cheap.
#[derive(Clone)]
pub struct Store {
    jobs: std_mpsc::Sender<Job>,
}

/// A table as stored: enough to replay it.
#[derive(Clone, Debug)]
pub struct StoredTable {
    /// Its number.
    pub id: TableId,
    /// The game.
    pub game: GameKind,
    /// The setup, as the game reads it.
    pub setup: serde_json::Value,
    /// The seed of its chance.
    pub seed: u64,
    /// The invitation code of a private table.
    pub code: Option<String>,
    /// Per seat: the computer's level (`None`: a person's seat) and its
    /// owner.
    pub seats: Vec<(Option<String>, Option<String>)>,
    /// The action log: (seat that moved, action, the client's move id).
    pub moves: Vec<(Option<usize>, serde_json::Value, Option<u64>)>,
}

/// A table to open.
#[derive(Clone, Debug)]
pub struct NewTable {
    /// The game.
    pub game: GameKind,
    /// The setup.
    pub setup: serde_json::Value,
    /// The seed.
    pub seed: u64,
    /// The invitation code, for a private table.
    pub code: Option<String>,
    /// Per seat: a computer's level, or `None` for a person.
    pub levels: Vec<Option<String>>,
}

/// The SHA-256 of a token, as stored: a stolen database gives no token.
pub fn hash_token(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn status_word(status: TableStatus) -> &'static str {
    match status {
        TableStatus::Waiting => "waiting",
        TableStatus::Playing => "playing",
        TableStatus::Over => "over",
    }
}

fn game_of(word: &str) -> Option<GameKind> {
    match word {
        "mille" => Some(GameKind::Mille),
        "cubes" => Some(GameKind::Cubes),
        _ => None,
    }
}

impl Store {
    /// Opens the database at `path` (creating and migrating it), reads
    /// every unfinished table, and starts the writer thread.
    pub fn open(path: &Path) -> Result<(Store, Vec<StoredTable>), StoreError> {
        let mut conn = game_store::open_db(path, MIGRATIONS)?;
        let sql = |source| StoreError::Sql {
            path: path.to_path_buf(),
            source,
        };
        // Every acknowledged move must survive a power cut, not only a
        // crash of the server.
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(sql)?;
        let tables = load(&mut conn).map_err(|e| match e {
            Loaded::Sql(source) => sql(source),
            Loaded::Corrupt(why) => StoreError::Corrupt(why),
        })?;
        let (jobs, queue) = std_mpsc::channel::<Job>();
        let at = path.to_path_buf();
        std::thread::Builder::new()
            .name("table-store".into())
            .spawn(move || writer(conn, &at, &queue))
            .map_err(|e| StoreError::Corrupt(format!("cannot start the database thread: {e}")))?;
        Ok((Store { jobs }, tables))
    }

    /// Runs `f` in the writer's next transaction; answers once it is
    /// committed.
    async fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Transaction<'_>) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move |t: &Transaction<'_>, path: &Path| {
            // Each job in its own savepoint: one that fails halfway leaves
            // nothing of itself in the batch's commit.
            let done = t
                .execute_batch("SAVEPOINT job")
                .and_then(|()| match f(t) {
                    Ok(v) => t.execute_batch("RELEASE job").map(|()| v),
                    Err(e) => {
                        let _ = t.execute_batch("ROLLBACK TO job; RELEASE job");
                        Err(e)
                    }
                })
                .map_err(|source| StoreError::Sql {
                    path: path.to_path_buf(),
                    source,
                });
            Box::new(move |committed: Result<(), StoreError>| {
                let _ = tx.send(committed.and(done));
            })
        });
        self.jobs.send(job).map_err(|_| StoreError::Closed)?;
        rx.await.map_err(|_| StoreError::Closed)?
    }

    /// The name `token` owns, if any.
    pub async fn name_of(&self, token: &str) -> Result<Option<String>, StoreError> {
        let hash = hash_token(token);
        self.call(move |t| {
            t.query_row(
                "SELECT name FROM players WHERE token_hash = ?1",
                params![hash],
                |r| r.get(0),
            )
            .optional()
        })
        .await
    }

    /// Gives `name` to `token` if the name is free; answers whether the
    /// token owns the name now.
    pub async fn claim(&self, name: &str, token: &str) -> Result<bool, StoreError> {
        let hash = hash_token(token);
        let name = name.to_string();
        self.call(move |t| {
            let owner: Option<String> = t
                .query_row(
                    "SELECT token_hash FROM players WHERE name = ?1",
                    params![name],
                    |r| r.get(0),
                )
                .optional()?;
            match owner {
                Some(h) => Ok(h == hash),
                None => {
                    t.execute(
                        "INSERT INTO players (name, token_hash, created_at) VALUES (?1, ?2, ?3)",
                        params![name, hash, now()],
                    )?;
                    Ok(true)
                }
            }
        })
        .await
    }

    /// The seats `name` holds at unfinished tables.
    pub async fn seats_of(&self, name: &str) -> Result<Vec<SeatRef>, StoreError> {
        let name = name.to_string();
        self.call(move |t| {
            let mut stmt = t.prepare(
                "SELECT s.table_id, t.game, s.seat FROM seats s JOIN tables t ON t.id = s.table_id \
                 WHERE s.owner = ?1 AND t.status != 'over' ORDER BY s.table_id, s.seat",
            )?;
            let rows = stmt.query_map(params![name], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                ))
            })?;
            let mut seats = Vec::new();
            for row in rows {
                let (table, game, seat) = row?;
                if let Some(game) = game_of(&game) {
                    seats.push(SeatRef {
                        table: table as TableId,
                        game,
                        seat: seat as usize,
                    });
                }
            }
            Ok(seats)
        })
        .await
    }

    /// Records a new table; answers its number.
    pub async fn create(&self, table: NewTable) -> Result<TableId, StoreError> {
        self.call(move |t| {
            t.execute(
                "INSERT INTO tables (game, setup, seats, seed, code, status, created_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, 'waiting', ?6)",
                params![
                    table.game.name(),
                    table.setup.to_string(),
                    table.levels.len() as i64,
                    table.seed as i64,
                    table.code,
                    now()
                ],
            )?;
            let id = t.last_insert_rowid();
            for (seat, level) in table.levels.iter().enumerate() {
                t.execute(
                    "INSERT INTO seats (table_id, seat, level, owner) VALUES (?1, ?2, ?3, NULL)",
                    params![id, seat as i64, level],
                )?;
            }
            Ok(id as TableId)
        })
        .await
    }

    /// Gives `seat` to `owner` (`None`: frees it).
    pub async fn set_owner(
        &self,
        table: TableId,
        seat: usize,
        owner: Option<String>,
    ) -> Result<(), StoreError> {
        self.call(move |t| {
            t.execute(
                "UPDATE seats SET owner = ?3 WHERE table_id = ?1 AND seat = ?2",
                params![table as i64, seat as i64, owner],
            )
            .map(|_| ())
        })
        .await
    }

    /// Appends move number `seq` to a table's log (refused if that number
    /// is taken: a move is never recorded twice).
    pub async fn append(
        &self,
        table: TableId,
        seq: u64,
        seat: Option<usize>,
        action: serde_json::Value,
        client_id: Option<u64>,
        status: TableStatus,
    ) -> Result<(), StoreError> {
        // Every move runs these two: prepared once per connection, not
        // parsed again each time.
        self.call(move |t| {
            t.prepare_cached(
                "INSERT INTO moves (table_id, seq, seat, action, client_id) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![
                table as i64,
                seq as i64,
                seat.map(|s| s as i64),
                action.to_string(),
                client_id.map(|i| i as i64)
            ])?;
            t.prepare_cached("UPDATE tables SET status = ?2 WHERE id = ?1 AND status != ?2")?
                .execute(params![table as i64, status_word(status)])?;
            Ok(())
        })
        .await
    }

    /// Marks a table as playing (every person's seat taken).
    pub async fn set_status(&self, table: TableId, status: TableStatus) -> Result<(), StoreError> {
        self.call(move |t| {
            t.execute(
                "UPDATE tables SET status = ?2 WHERE id = ?1",
                params![table as i64, status_word(status)],
            )
            .map(|_| ())
        })
        .await
    }

    /// Records a finished game's results and closes the table.
    pub async fn finish(
        &self,
        table: TableId,
        results: Vec<(String, bool, i64, bool)>,
    ) -> Result<(), StoreError> {
        self.call(move |t| {
            for (seat, (name, computer, score, won)) in results.iter().enumerate() {
                t.execute(
                    "INSERT OR REPLACE INTO results (table_id, seat, name, computer, score, won) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![table as i64, seat as i64, name, computer, score, won],
                )?;
            }
            t.execute(
                "UPDATE tables SET status = 'over', finished_at = ?2 WHERE id = ?1",
                params![table as i64, now()],
            )?;
            Ok(())
        })
        .await
    }
}

/// The writer: runs every job queued, one transaction per batch, and
/// answers each once the batch is committed.
fn writer(mut conn: Connection, path: &Path, queue: &std_mpsc::Receiver<Job>) {
    // Enough to absorb a burst without making one commit wait for ages.
    const BATCH: usize = 512;
    while let Ok(first) = queue.recv() {
        let mut batch = vec![first];
        while batch.len() < BATCH {
            match queue.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let sql = |source| StoreError::Sql {
            path: path.to_path_buf(),
            source,
        };
        let tx = match conn.transaction() {
            Ok(tx) => tx,
            Err(e) => {
                let why = e.to_string();
                tracing::error!(error = %why, "cannot begin a transaction");
                // Dropping a job drops its answer: its caller hears
                // that the database failed.
                drop(batch);
                continue;
            }
        };
        let replies: Vec<Reply> = batch.into_iter().map(|job| job(&tx, path)).collect();
        let committed = tx.commit().map_err(sql);
        if let Err(e) = &committed {
            tracing::error!(error = %e, "a commit failed");
        }
        for reply in replies {
            let result = match &committed {
                Ok(()) => Ok(()),
                Err(e) => Err(StoreError::Corrupt(format!("the commit failed: {e}"))),
            };
            reply(result);
        }
    }
}

enum Loaded {
    Sql(rusqlite::Error),
    Corrupt(String),
}

impl From<rusqlite::Error> for Loaded {
    fn from(e: rusqlite::Error) -> Loaded {
        Loaded::Sql(e)
    }
}

/// Every unfinished table with its seats and log.
fn load(conn: &mut Connection) -> Result<Vec<StoredTable>, Loaded> {
    let t = conn.transaction()?;
    let mut tables = Vec::new();
    {
        let mut stmt = t.prepare(
            "SELECT id, game, setup, seed, code FROM tables WHERE status != 'over' ORDER BY id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, Option<String>>(4)?,
            ))
        })?;
        for row in rows {
            let (id, game, setup, seed, code) = row?;
            let game = game_of(&game)
                .ok_or_else(|| Loaded::Corrupt(format!("table {id}: unknown game {game:?}")))?;
            let setup = serde_json::from_str(&setup)
                .map_err(|e| Loaded::Corrupt(format!("table {id}: setup: {e}")))?;
            tables.push(StoredTable {
                id: id as TableId,
                game,
                setup,
                seed: seed as u64,
                code,
                seats: Vec::new(),
                moves: Vec::new(),
            });
        }
    }
    for table in &mut tables {
        let mut stmt =
            t.prepare("SELECT level, owner FROM seats WHERE table_id = ?1 ORDER BY seat")?;
        table.seats = stmt
            .query_map(params![table.id as i64], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let mut stmt = t.prepare(
            "SELECT seq, seat, action, client_id FROM moves WHERE table_id = ?1 ORDER BY seq",
        )?;
        let rows = stmt.query_map(params![table.id as i64], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, Option<i64>>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<i64>>(3)?,
            ))
        })?;
        for (k, row) in rows.enumerate() {
            let (seq, seat, action, client_id) = row?;
            if seq != k as i64 + 1 {
                return Err(Loaded::Corrupt(format!(
                    "table {}: move {} is missing",
                    table.id,
                    k + 1
                )));
            }
            let action = serde_json::from_str(&action)
                .map_err(|e| Loaded::Corrupt(format!("table {} move {seq}: {e}", table.id)))?;
            table.moves.push((
                seat.map(|s| s as usize),
                action,
                client_id.map(|i| i as u64),
            ));
        }
    }
    drop(t);
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
    }

    #[test]
    fn tables_moves_and_names_survive_a_reopen() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("server.db");
        runtime().block_on(async {
            let (store, tables) = Store::open(&path).expect("open");
            assert!(tables.is_empty());
            assert!(store.claim("ann", "secret-a").await.expect("claim"));
            assert!(!store.claim("ann", "secret-b").await.expect("claim"));
            assert_eq!(
                store.name_of("secret-a").await.expect("name"),
                Some("ann".to_string())
            );
            let id = store
                .create(NewTable {
                    game: GameKind::Mille,
                    setup: serde_json::Value::Null,
                    seed: 7,
                    code: None,
                    levels: vec![None, Some("classic".into())],
                })
                .await
                .expect("create");
            store
                .set_owner(id, 0, Some("ann".into()))
                .await
                .expect("owner");
            let draw = serde_json::Value::from("draw");
            store
                .append(id, 1, Some(0), draw.clone(), Some(5), TableStatus::Playing)
                .await
                .expect("move");
            let twice = store
                .append(id, 1, Some(0), draw.clone(), Some(5), TableStatus::Playing)
                .await;
            assert!(twice.is_err(), "a sequence number is taken once");
            assert_eq!(
                store.seats_of("ann").await.expect("seats"),
                vec![SeatRef {
                    table: id,
                    game: GameKind::Mille,
                    seat: 0
                }]
            );
        });
        let (_store, tables) = Store::open(&path).expect("reopen");
        assert_eq!(tables.len(), 1);
        assert_eq!(tables[0].seed, 7);
        assert_eq!(
            tables[0].seats,
            vec![(None, Some("ann".into())), (Some("classic".into()), None)]
        );
        assert_eq!(
            tables[0].moves,
            vec![(Some(0), serde_json::Value::from("draw"), Some(5))]
        );
    }

    #[test]
    fn a_job_that_fails_halfway_leaves_nothing() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("server.db");
        runtime().block_on(async {
            let (store, _) = Store::open(&path).expect("open");
            let half = store
                .call(|t| {
                    t.execute(
                        "INSERT INTO players (name, token_hash, created_at) VALUES ('eve', 'x', 0)",
                        [],
                    )?;
                    t.execute("INSERT INTO nowhere VALUES (1)", [])
                })
                .await;
            assert!(half.is_err());
            // A job of the same batch or the next is unaffected.
            assert!(store.claim("ann", "a").await.expect("claim"));
            assert!(store.claim("eve", "e").await.expect("eve is free"));
        });
    }

    #[test]
    fn tokens_are_stored_hashed() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("server.db");
        runtime().block_on(async {
            let (store, _) = Store::open(&path).expect("open");
            assert!(store.claim("bob", "the-token").await.expect("claim"));
        });
        let conn = Connection::open(&path).expect("open");
        let stored: String = conn
            .query_row("SELECT token_hash FROM players", [], |r| r.get(0))
            .expect("row");
        assert_ne!(stored, "the-token");
        assert_eq!(stored, hash_token("the-token"));
    }
}
