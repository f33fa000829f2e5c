//! The SQLite backend: one file in the data directory, for one server.
//!
//! One writer thread owns the connection. Tables send it work and await
//! the answer; it runs whatever has queued up in one transaction and
//! answers only after that transaction is committed (group commit), so a
//! move is on disk before anybody is told of it, and a thousand tables do
//! not pay a thousand flushes a second. Write-ahead log,
//! `synchronous=FULL`: an acknowledged move survives a power cut.

use super::rate::{self, Stored};
use super::{
    EndingNote, EndingRow, FinishedGame, GameRecordRow, GameSummaryRow, HistoryRow, Instance,
    MIGRATIONS, NewTable, Outcome, Place, PlayerRecord, RatingChange, RatingRow, ResultRow,
    StoreError, StoredTable, Taken, game_of, now, setup_of, status_word,
};
use game_rating::{Category, Rating};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc as std_mpsc;
use table_protocol::{BotInfo, GameKind, SeatRef, TableId, TableStatus, TableSummary};
use tokio::sync::oneshot;

type Reply = Box<dyn FnOnce(Result<(), StoreError>) + Send>;
type Job = Box<dyn FnOnce(&Transaction<'_>, &Path) -> Reply + Send>;

/// The SQLite database's writer thread.
pub struct Sqlite {
    jobs: std_mpsc::Sender<Job>,
}

/// Milliseconds since 1970 by this machine's clock: with one server on
/// one machine, the database's clock and the server's are one.
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

fn lease_ms(instance: &Instance) -> i64 {
    i64::try_from(instance.lease.as_millis()).unwrap_or(i64::MAX / 4)
}

/// Whether a change to `table` by instance `me` was fenced out: answers
/// [`StoreError::LeaseLost`] when `me` does not hold its lease.
fn fence(t: &Transaction<'_>, table: TableId, me: &str) -> rusqlite::Result<bool> {
    let owner: Option<Option<String>> = t
        .prepare_cached("SELECT lease_owner FROM tables WHERE id = ?1")?
        .query_row(params![table as i64], |r| r.get(0))
        .optional()?;
    Ok(owner.flatten().as_deref() == Some(me))
}

impl Sqlite {
    /// Opens the database at `path` (creating and migrating it), makes
    /// every unfinished table `instance`'s, reads them, and starts the
    /// writer thread.
    pub fn open(path: &Path, instance: &Instance) -> Result<(Sqlite, Vec<Taken>), StoreError> {
        let migrations: Vec<&str> = MIGRATIONS.iter().map(|m| m.sqlite).collect();
        let conn = game_store::open_db_private(path, &migrations).map_err(|e| match e {
            game_store::StoreError::TooNew { found, known, .. } => {
                StoreError::TooNew { found, known }
            }
            e => StoreError::Open(e),
        })?;
        let sql = |source| StoreError::Sql {
            path: path.to_path_buf(),
            source,
        };
        // Every acknowledged move must survive a power cut, not only a
        // crash of the server.
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(sql)?;
        // One server per file: whatever an earlier run held is this one's.
        conn.execute(
            "UPDATE tables SET lease_owner = ?1, lease_until = ?2 WHERE status != 'over'",
            params![instance.id, i64::MAX],
        )
        .map_err(sql)?;
        conn.execute(
            "INSERT OR REPLACE INTO instances (id, address, started_at, seen_at) VALUES (?1, ?2, ?3, ?3)",
            params![instance.id, instance.address, now()],
        )
        .map_err(sql)?;
        // Table by table: one that cannot be read back is answered as
        // such, and the others are played.
        let ids: Vec<i64> = conn
            .prepare("SELECT id FROM tables WHERE status != 'over' ORDER BY id")
            .and_then(|mut stmt| {
                stmt.query_map([], |r| r.get(0))?
                    .collect::<rusqlite::Result<_>>()
            })
            .map_err(sql)?;
        let mut tables = Vec::new();
        for id in ids {
            match load(&conn, Some(id as TableId)) {
                Ok(loaded) => tables.extend(loaded.into_iter().map(Ok)),
                Err(Loaded::Sql(e)) => return Err(sql(e)),
                Err(Loaded::Corrupt(why)) => tables.push(Err((id as TableId, why))),
            }
        }
        let (jobs, queue) = std_mpsc::channel::<Job>();
        let at = path.to_path_buf();
        std::thread::Builder::new()
            .name("table-store".into())
            .spawn(move || writer(conn, &at, &queue))
            .map_err(|e| StoreError::Corrupt(format!("cannot start the database thread: {e}")))?;
        Ok((Sqlite { jobs }, tables))
    }

    /// Runs `f` in the writer's next transaction; answers once it is
    /// committed.
    pub(super) async fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Transaction<'_>) -> Result<T, Failed> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move |t: &Transaction<'_>, path: &Path| {
            // Each job in its own savepoint: one that fails halfway leaves
            // nothing of itself in the batch's commit.
            let sql = |source| StoreError::Sql {
                path: path.to_path_buf(),
                source,
            };
            let done = match t.execute_batch("SAVEPOINT job") {
                Err(e) => Err(sql(e)),
                Ok(()) => match f(t) {
                    Ok(v) => t.execute_batch("RELEASE job").map(|()| v).map_err(sql),
                    Err(e) => {
                        let _ = t.execute_batch("ROLLBACK TO job; RELEASE job");
                        Err(match e {
                            Failed::Sql(e) => sql(e),
                            Failed::Store(e) => e,
                        })
                    }
                },
            };
            Box::new(move |committed: Result<(), StoreError>| {
                let _ = tx.send(committed.and(done));
            })
        });
        self.jobs.send(job).map_err(|_| StoreError::Closed)?;
        rx.await.map_err(|_| StoreError::Closed)?
    }

    pub(super) async fn replace_token(
        &self,
        name: String,
        old: String,
        new: String,
    ) -> Result<bool, StoreError> {
        self.call(move |t| {
            let changed = t.execute(
                "UPDATE players SET token_hash = ?3 WHERE name = ?1 AND token_hash = ?2",
                params![name, old, new],
            )?;
            Ok(changed == 1)
        })
        .await
    }

    pub(super) async fn sign_out(
        &self,
        name: String,
        old: String,
        nobody: String,
    ) -> Result<bool, StoreError> {
        self.call(move |t| {
            if t.execute(super::LET_GO, params![name, old])? == 1 {
                return Ok(true);
            }
            t.execute(
                "UPDATE players SET token_hash = ?3 WHERE name = ?1 AND token_hash = ?2",
                params![name, old, nobody],
            )?;
            Ok(false)
        })
        .await
    }

    pub(super) async fn name_of(&self, hash: String) -> Result<Option<String>, StoreError> {
        self.call(move |t| {
            Ok(t.query_row(
                "SELECT name FROM players WHERE token_hash = ?1",
                params![hash],
                |r| r.get(0),
            )
            .optional()?)
        })
        .await
    }

    pub(super) async fn claim(
        &self,
        name: String,
        hash: String,
        bot: Option<(String, String)>,
    ) -> Result<bool, StoreError> {
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
                    let (owner, description) = bot.clone().unzip();
                    t.execute(
                        "INSERT INTO players (name, token_hash, created_at, seen_at, bot, bot_owner, bot_description) \
                         VALUES (?1, ?2, ?3, ?3, ?4, ?5, ?6)",
                        params![name, hash, now(), bot.is_some(), owner, description],
                    )?;
                    Ok(true)
                }
            }
        })
        .await
    }

    pub(super) async fn bot_info(&self, name: String) -> Result<Option<BotInfo>, StoreError> {
        self.call(move |t| {
            let row: Option<(bool, Option<String>, Option<String>)> = t
                .query_row(
                    "SELECT bot, bot_owner, bot_description FROM players WHERE name = ?1",
                    params![name],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .optional()?;
            Ok(super::bot_of(row))
        })
        .await
    }

    pub(super) async fn update_bot(
        &self,
        name: String,
        owner: String,
        description: String,
    ) -> Result<(), StoreError> {
        self.call(move |t| {
            t.execute(
                "UPDATE players SET bot_owner = ?2, bot_description = ?3 WHERE name = ?1 AND bot",
                params![name, owner, description],
            )?;
            Ok(())
        })
        .await
    }

    pub(super) async fn seen(&self, name: String, now: i64) -> Result<(), StoreError> {
        self.call(move |t| {
            t.execute(
                "UPDATE players SET seen_at = ?2 WHERE name = ?1",
                params![name, now],
            )?;
            Ok(())
        })
        .await
    }

    pub(super) async fn sweep(
        &self,
        names_before: i64,
        tables_before: i64,
    ) -> Result<super::Swept, StoreError> {
        self.call(move |t| {
            let mut counts = [0u64; 3];
            for (sql, count) in super::SWEEP.iter().zip(&mut counts) {
                // SQLite reads PostgreSQL's $N as the same numbered
                // parameter, and takes only those a statement names.
                let mut stmt = t.prepare(sql)?;
                let mut k = 1;
                while k <= stmt.parameter_count() {
                    let name = stmt.parameter_name(k).unwrap_or("");
                    let value = if name == "$1" {
                        names_before
                    } else {
                        tables_before
                    };
                    stmt.raw_bind_parameter(k, value)?;
                    k += 1;
                }
                *count = stmt.raw_execute()? as u64;
            }
            Ok(super::Swept {
                names: counts[2],
                tables: counts[1],
            })
        })
        .await
    }

    pub(super) async fn seats_of(&self, name: String) -> Result<Vec<SeatRef>, StoreError> {
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

    pub(super) async fn create(
        &self,
        table: NewTable,
        instance: Arc<Instance>,
    ) -> Result<TableId, StoreError> {
        self.call(move |t| {
            t.execute(
                "INSERT INTO tables (game, setup, seats, seed, code, status, created_at, lease_owner, lease_until, rated, \
                 bots_allowed, arena, arena_round) \
                 VALUES (?1, ?2, ?3, ?4, ?5, 'waiting', ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                params![
                    table.game.name(),
                    table.setup.to_string(),
                    table.levels.len() as i64,
                    table.seed as i64,
                    table.code,
                    now(),
                    instance.id,
                    now_ms().saturating_add(lease_ms(&instance)),
                    table.rated,
                    table.bots_allowed,
                    table.arena.as_ref().map(|a| a.arena.clone()),
                    table.arena.as_ref().map(|a| i64::from(a.round)),
                ],
            )?;
            let id = t.last_insert_rowid();
            for (seat, level) in table.levels.iter().enumerate() {
                // A seat kept for an invited bot is the bot's from the start.
                let owner = table.invited.get(seat).cloned().flatten();
                t.execute(
                    "INSERT INTO seats (table_id, seat, level, owner) VALUES (?1, ?2, ?3, ?4)",
                    params![id, seat as i64, level, owner],
                )?;
            }
            Ok(id as TableId)
        })
        .await
    }

    pub(super) async fn set_owner(
        &self,
        table: TableId,
        seat: usize,
        owner: Option<String>,
        me: String,
    ) -> Result<(), StoreError> {
        self.call(move |t| {
            if !fence(t, table, &me)? {
                return Err(Failed::Store(StoreError::LeaseLost(table)));
            }
            t.execute(
                "UPDATE seats SET owner = ?3 WHERE table_id = ?1 AND seat = ?2",
                params![table as i64, seat as i64, owner],
            )?;
            Ok(())
        })
        .await
    }

    pub(super) async fn append(
        &self,
        table: TableId,
        row: super::MoveRow,
        me: String,
    ) -> Result<(), StoreError> {
        let super::MoveRow {
            seq,
            seat,
            action,
            client_id,
            stand_in,
        } = row;
        // Every move runs these: prepared once per connection, not parsed
        // again each time.
        self.call(move |t| {
            if !fence(t, table, &me)? {
                return Err(Failed::Store(StoreError::LeaseLost(table)));
            }
            t.prepare_cached(
                "INSERT INTO moves (table_id, seq, seat, action, client_id, stand_in) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                table as i64,
                seq as i64,
                seat.map(|s| s as i64),
                action.to_string(),
                client_id.map(|i| i as i64),
                stand_in
            ])?;
            Ok(())
        })
        .await
    }

    pub(super) async fn set_status(
        &self,
        table: TableId,
        status: TableStatus,
        me: String,
    ) -> Result<(), StoreError> {
        self.call(move |t| {
            let changed = t.execute(
                "UPDATE tables SET status = ?2 WHERE id = ?1 AND lease_owner = ?3",
                params![table as i64, status_word(status), me],
            )?;
            if changed == 0 {
                return Err(Failed::Store(StoreError::LeaseLost(table)));
            }
            Ok(())
        })
        .await
    }

    pub(super) async fn finish(
        &self,
        table: TableId,
        game: FinishedGame,
        me: String,
        now: i64,
    ) -> Result<Vec<RatingChange>, StoreError> {
        self.call(move |t| {
            let rated = end(t, table, &me, Outcome::Finished, now)?;
            if let Some(forfeit) = &game.forfeit {
                t.execute(
                    "UPDATE tables SET forfeit_seat = ?2, forfeit_reason = ?3 WHERE id = ?1",
                    params![table as i64, forfeit.seat as i64, forfeit.reason],
                )?;
            }
            if let Some((kind, record)) = &game.score {
                t.prepare_cached("INSERT INTO scores (game, finished_at, record) VALUES (?1, ?2, ?3)")?
                    .execute(params![kind.name(), now, record])?;
            }
            {
                let mut insert = t.prepare_cached(
                    "INSERT OR REPLACE INTO results \
                     (table_id, seat, name, computer, score, won, side, place, abandoned) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                )?;
                for (seat, r) in game.results.iter().enumerate() {
                    insert.execute(params![
                        table as i64,
                        seat as i64,
                        r.name,
                        r.computer,
                        r.score,
                        r.won,
                        r.side as i64,
                        r.place as i64,
                        r.abandoned
                    ])?;
                }
            }
            let mut changes = Vec::new();
            if let (true, Some(category)) = (rated, game.category) {
                // The writer is the only one: what is read here is what
                // the update replaces.
                let mut stored = Vec::new();
                for name in rate::names(&game.results) {
                    let row = read_rating(t, &name, category)?;
                    stored.push((name, row));
                }
                let find = |name: &str| {
                    stored
                        .iter()
                        .find(|(n, _)| n == name)
                        .and_then(|(_, row)| *row)
                };
                if let Some(updates) = rate::updates(category, &game.results, find, now) {
                    let mut upsert = t.prepare_cached(
                        "INSERT OR REPLACE INTO ratings \
                         (name, category, rating, deviation, volatility, games, wins, last_played, computer) \
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    )?;
                    let mut history = t.prepare_cached(
                        "INSERT OR REPLACE INTO rating_history (table_id, name, category, at, \
                         before_rating, before_deviation, before_volatility, \
                         after_rating, after_deviation, after_volatility) \
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                    )?;
                    for u in updates {
                        let (b, a) = (u.change.before, u.change.after);
                        upsert.execute(params![
                            u.name,
                            category.id(),
                            a.rating,
                            a.deviation,
                            a.volatility,
                            u.games,
                            u.wins,
                            now,
                            u.computer
                        ])?;
                        history.execute(params![
                            table as i64,
                            u.name,
                            category.id(),
                            now,
                            b.rating,
                            b.deviation,
                            b.volatility,
                            a.rating,
                            a.deviation,
                            a.volatility
                        ])?;
                        changes.push(u.change);
                    }
                }
            }
            write_endings(t, table, &game.endings)?;
            Ok(changes)
        })
        .await
    }

    pub(super) async fn close(
        &self,
        table: TableId,
        outcome: Outcome,
        endings: Vec<EndingNote>,
        me: String,
        now: i64,
    ) -> Result<(), StoreError> {
        self.call(move |t| {
            end(t, table, &me, outcome, now)?;
            write_endings(t, table, &endings)?;
            Ok(())
        })
        .await
    }

    pub(super) async fn take_endings(&self, name: String) -> Result<Vec<EndingRow>, StoreError> {
        self.call(move |t| {
            let rows = {
                let mut stmt = t.prepare_cached(
                    "SELECT e.table_id, t.game, t.setup, t.seats, e.abandoned, e.summary, \
                     h.before_rating, h.before_deviation, h.before_volatility, \
                     h.after_rating, h.after_deviation, h.after_volatility \
                     FROM endings e JOIN tables t ON t.id = e.table_id \
                     LEFT JOIN rating_history h ON h.table_id = e.table_id AND h.name = e.name \
                     WHERE e.name = ?1 ORDER BY t.finished_at, e.table_id",
                )?;
                let rows = stmt.query_map(params![name], |r| {
                    let change = match (r.get::<_, Option<f64>>(6)?, r.get::<_, Option<f64>>(9)?) {
                        (Some(before), Some(after)) => Some((
                            Rating {
                                rating: before,
                                deviation: r.get(7)?,
                                volatility: r.get(8)?,
                            },
                            Rating {
                                rating: after,
                                deviation: r.get(10)?,
                                volatility: r.get(11)?,
                            },
                        )),
                        _ => None,
                    };
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, bool>(4)?,
                        r.get::<_, String>(5)?,
                        change,
                    ))
                })?;
                rows.collect::<rusqlite::Result<Vec<_>>>()?
            };
            t.prepare_cached("DELETE FROM endings WHERE name = ?1")?
                .execute(params![name])?;
            Ok(rows
                .into_iter()
                .filter_map(|(id, game, setup, seats, abandoned, summary, change)| {
                    Some(EndingRow {
                        table: id as TableId,
                        game: game_of(&game)?,
                        setup: setup_of(&setup),
                        seats: seats as usize,
                        abandoned,
                        summary,
                        change,
                    })
                })
                .collect())
        })
        .await
    }

    pub(super) async fn ratings(
        &self,
        category: Category,
        names: Vec<String>,
    ) -> Result<Vec<RatingRow>, StoreError> {
        self.call(move |t| {
            let mut stmt = t.prepare_cached(
                "SELECT ratings.name, rating, deviation, volatility, games, wins, last_played, computer, \
                 COALESCE(p.bot, 0) AS bot \
                 FROM ratings LEFT JOIN players p ON p.name = ratings.name \
                 WHERE ratings.name = ?1 AND category = ?2 AND games > 0",
            )?;
            let mut rows = Vec::new();
            for name in names {
                if let Some(row) = stmt
                    .query_row(params![name, category.id()], |r| {
                        read_rating_row(r, category)
                    })
                    .optional()?
                {
                    rows.push(row);
                }
            }
            Ok(rows)
        })
        .await
    }

    pub(super) async fn ladder(
        &self,
        category: Category,
        limit: usize,
    ) -> Result<Vec<RatingRow>, StoreError> {
        self.call(move |t| {
            let mut stmt = t.prepare_cached(
                "SELECT ratings.name, rating, deviation, volatility, games, wins, last_played, computer, \
                 COALESCE(p.bot, 0) AS bot \
                 FROM ratings LEFT JOIN players p ON p.name = ratings.name \
                 WHERE category = ?1 AND games > 0 \
                 ORDER BY rating DESC, ratings.name LIMIT ?2",
            )?;
            let rows = stmt.query_map(
                params![category.id(), i64::try_from(limit).unwrap_or(i64::MAX)],
                |r| read_rating_row(r, category),
            )?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
        .await
    }

    pub(super) async fn player(
        &self,
        name: String,
        limit: usize,
    ) -> Result<Option<PlayerRecord>, StoreError> {
        self.call(move |t| {
            let known: bool = t.query_row(
                "SELECT EXISTS (SELECT 1 FROM players WHERE name = ?1) \
                 OR EXISTS (SELECT 1 FROM ratings WHERE name = ?1) \
                 OR EXISTS (SELECT 1 FROM results WHERE name = ?1)",
                params![name],
                |r| r.get(0),
            )?;
            if !known {
                return Ok(None);
            }
            let mut ratings = Vec::new();
            {
                let mut stmt = t.prepare_cached(
                    "SELECT ratings.name, rating, deviation, volatility, games, wins, last_played, computer, \
                     category, COALESCE(p.bot, 0) AS bot \
                     FROM ratings LEFT JOIN players p ON p.name = ratings.name \
                     WHERE ratings.name = ?1 AND games > 0 ORDER BY category",
                )?;
                let mut rows = stmt.query(params![name])?;
                while let Some(r) = rows.next()? {
                    let id: String = r.get(8)?;
                    // A category of a newer program is left out.
                    if let Some(category) = Category::parse(&id) {
                        ratings.push(read_rating_row(r, category)?);
                    }
                }
            }
            let mut history = Vec::new();
            {
                let mut stmt = t.prepare_cached(
                    "SELECT table_id, category, at, before_rating, after_rating, after_deviation \
                     FROM rating_history WHERE name = ?1 ORDER BY at, table_id",
                )?;
                let mut rows = stmt.query(params![name])?;
                while let Some(r) = rows.next()? {
                    let id: String = r.get(1)?;
                    if let Some(category) = Category::parse(&id) {
                        history.push(HistoryRow {
                            table: r.get::<_, i64>(0)? as TableId,
                            category,
                            at: r.get(2)?,
                            before: r.get(3)?,
                            after: r.get(4)?,
                            deviation: r.get(5)?,
                        });
                    }
                }
            }
            let mut games = Vec::new();
            {
                let mut stmt = t.prepare_cached(
                    "SELECT t.id, t.game, t.setup, t.seats, t.rated, t.finished_at, t.code IS NOT NULL \
                     FROM tables t WHERE t.status = 'over' AND t.finished_at IS NOT NULL \
                     AND t.id IN (SELECT table_id FROM results WHERE name = ?1) \
                     ORDER BY t.finished_at DESC, t.id DESC LIMIT ?2",
                )?;
                let mut rows =
                    stmt.query(params![name, i64::try_from(limit).unwrap_or(i64::MAX)])?;
                while let Some(r) = rows.next()? {
                    let game: String = r.get(1)?;
                    let Some(game) = game_of(&game) else { continue };
                    let setup: String = r.get(2)?;
                    games.push(GameSummaryRow {
                        table: r.get::<_, i64>(0)? as TableId,
                        game,
                        setup: setup_of(&setup),
                        seats: r.get::<_, i64>(3)? as usize,
                        rated: r.get(4)?,
                        finished_at: r.get(5)?,
                        code_private: r.get(6)?,
                        results: Vec::new(),
                    });
                }
            }
            for g in &mut games {
                g.results = read_results(t, g.table)?;
            }
            Ok(Some(PlayerRecord {
                name,
                ratings,
                history,
                games,
            }))
        })
        .await
    }

    pub(super) async fn game(&self, table: TableId) -> Result<Option<GameRecordRow>, StoreError> {
        self.call(move |t| {
            let row = t
                .query_row(
                    "SELECT outcome, finished_at, code IS NOT NULL, forfeit_seat, forfeit_reason \
                     FROM tables WHERE id = ?1 AND status = 'over'",
                    params![table as i64],
                    |r| {
                        Ok((
                            r.get::<_, Option<String>>(0)?,
                            r.get::<_, Option<i64>>(1)?,
                            r.get::<_, bool>(2)?,
                            super::forfeit_of(r.get(3)?, r.get(4)?),
                        ))
                    },
                )
                .optional()?;
            let Some((outcome, finished_at, private, forfeit)) = row else {
                return Ok(None);
            };
            let stored = match read_tables(t, Some(table), true) {
                Ok(mut tables) => match tables.pop() {
                    Some(stored) => stored,
                    None => return Ok(None),
                },
                Err(Loaded::Sql(e)) => return Err(Failed::Sql(e)),
                Err(Loaded::Corrupt(why)) => return Err(Failed::Store(StoreError::Corrupt(why))),
            };
            Ok(Some(GameRecordRow {
                results: read_results(t, table)?,
                outcome: outcome.as_deref().and_then(Outcome::parse),
                finished_at,
                private,
                table: stored,
                forfeit,
            }))
        })
        .await
    }

    pub(super) async fn arena_games(
        &self,
        arena: String,
    ) -> Result<Vec<super::ArenaGameRow>, StoreError> {
        self.call(move |t| {
            let mut stmt = t.prepare_cached(super::ARENA_GAMES)?;
            let rows = stmt.query_map(params![arena], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                ))
            })?;
            let rows = rows.collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(super::arena_games_of(rows))
        })
        .await
    }

    pub(super) async fn renew(
        &self,
        tables: Vec<TableId>,
        instance: Arc<Instance>,
    ) -> Result<Vec<TableId>, StoreError> {
        self.call(move |t| {
            let until = now_ms().saturating_add(lease_ms(&instance));
            let mut kept = Vec::new();
            let mut stmt = t.prepare_cached(
                "UPDATE tables SET lease_until = max(lease_until, ?3) WHERE id = ?1 AND lease_owner = ?2",
            )?;
            for id in tables {
                if stmt.execute(params![id as i64, instance.id, until])? > 0 {
                    kept.push(id);
                }
            }
            t.execute(
                "UPDATE instances SET seen_at = ?2 WHERE id = ?1",
                params![instance.id, now()],
            )?;
            Ok(kept)
        })
        .await
    }

    pub(super) async fn take_over(
        &self,
        only: Option<TableId>,
        limit: usize,
        skip: Vec<TableId>,
        instance: Arc<Instance>,
    ) -> Result<Vec<Taken>, StoreError> {
        self.call(move |t| {
            let now = now_ms();
            let ids: Vec<i64> = {
                let mut stmt = t.prepare(
                    "SELECT id FROM tables WHERE status != 'over' \
                     AND (lease_owner IS NULL OR lease_until < ?1) AND (?2 IS NULL OR id = ?2) \
                     AND (?2 IS NOT NULL OR lease_owner IS NULL OR lease_owner != ?3) \
                     ORDER BY id",
                )?;
                let ids: Vec<i64> = stmt
                    .query_map(params![now, only.map(|i| i as i64), instance.id], |r| {
                        r.get(0)
                    })?
                    .collect::<rusqlite::Result<_>>()?;
                ids.into_iter()
                    .filter(|id| !skip.contains(&(*id as TableId)))
                    .take(limit)
                    .collect()
            };
            for id in &ids {
                t.execute(
                    "UPDATE tables SET lease_owner = ?2, lease_until = ?3 WHERE id = ?1",
                    params![id, instance.id, now.saturating_add(lease_ms(&instance))],
                )?;
            }
            let mut tables = Vec::new();
            for id in ids {
                match load(t, Some(id as TableId)) {
                    Ok(loaded) => tables.extend(loaded.into_iter().map(Ok)),
                    Err(Loaded::Sql(e)) => return Err(Failed::Sql(e)),
                    Err(Loaded::Corrupt(why)) => tables.push(Err((id as TableId, why))),
                }
            }
            Ok(tables)
        })
        .await
    }

    pub(super) async fn release(&self, table: TableId, me: String) -> Result<(), StoreError> {
        self.call(move |t| {
            t.execute(
                "UPDATE tables SET lease_owner = NULL, lease_until = NULL WHERE id = ?1 AND lease_owner = ?2",
                params![table as i64, me],
            )?;
            Ok(())
        })
        .await
    }

    pub(super) async fn place(&self, id: TableId, name: String) -> Result<Place, StoreError> {
        self.call(move |t| {
            let row: Option<LeaseRow> = t
                .query_row(
                    "SELECT t.status, t.lease_owner, t.lease_until, i.address, t.code, \
                     EXISTS (SELECT 1 FROM seats s WHERE s.table_id = t.id AND s.owner = ?2) \
                     FROM tables t LEFT JOIN instances i ON i.id = t.lease_owner WHERE t.id = ?1",
                    params![id as i64, name],
                    |r| {
                        Ok(LeaseRow {
                            status: r.get(0)?,
                            owner: r.get(1)?,
                            until: r.get(2)?,
                            address: r.get(3)?,
                            code: r.get(4)?,
                            seated: r.get(5)?,
                        })
                    },
                )
                .optional()?;
            Ok(place_of(row, now_ms()))
        })
        .await
    }

    pub(super) async fn publish(
        &self,
        lines: Vec<(TableId, String)>,
        me: String,
    ) -> Result<(), StoreError> {
        self.call(move |t| {
            let mut stmt = t.prepare_cached(
                "UPDATE tables SET summary = ?2 WHERE id = ?1 AND lease_owner = ?3",
            )?;
            for (id, line) in lines {
                stmt.execute(params![id as i64, line, me])?;
            }
            Ok(())
        })
        .await
    }

    pub(super) async fn lobby(&self, me: String) -> Result<Vec<TableSummary>, StoreError> {
        self.call(move |t| {
            let mut stmt = t.prepare(
                "SELECT summary FROM tables WHERE status != 'over' AND summary IS NOT NULL \
                 AND (lease_owner IS NULL OR lease_owner != ?1)",
            )?;
            let lines: Vec<String> = stmt
                .query_map(params![me], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            Ok(super::read_lines(&lines))
        })
        .await
    }

    pub(super) async fn retire(&self, me: String) -> Result<(), StoreError> {
        self.call(move |t| {
            t.execute(
                "UPDATE tables SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ?1",
                params![me],
            )?;
            t.execute("DELETE FROM instances WHERE id = ?1", params![me])?;
            Ok(())
        })
        .await
    }

    pub(super) async fn scores(&self, game: GameKind) -> Result<Vec<String>, StoreError> {
        self.call(move |t| {
            let mut stmt = t.prepare("SELECT record FROM scores WHERE game = ?1 ORDER BY id")?;
            Ok(stmt
                .query_map(params![game.name()], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?)
        })
        .await
    }
}

/// Why a job failed: SQLite's error, or the store's own (a lost lease).
pub(super) enum Failed {
    Sql(rusqlite::Error),
    Store(StoreError),
}

impl From<rusqlite::Error> for Failed {
    fn from(e: rusqlite::Error) -> Failed {
        Failed::Sql(e)
    }
}

/// Ends table `table` as `outcome` (over, finished now) if instance `me`
/// holds its lease and it is not over yet; answers whether it is rated.
fn end(
    t: &Transaction<'_>,
    table: TableId,
    me: &str,
    outcome: Outcome,
    now: i64,
) -> Result<bool, Failed> {
    let row: Option<(Option<String>, String, bool)> = t
        .prepare_cached("SELECT lease_owner, status, rated FROM tables WHERE id = ?1")?
        .query_row(params![table as i64], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .optional()?;
    let Some((owner, status, rated)) = row else {
        return Err(Failed::Store(StoreError::LeaseLost(table)));
    };
    if owner.as_deref() != Some(me) {
        return Err(Failed::Store(StoreError::LeaseLost(table)));
    }
    if status == "over" {
        return Err(Failed::Store(StoreError::Over(table)));
    }
    t.prepare_cached(
        "UPDATE tables SET status = 'over', finished_at = ?2, outcome = ?3 WHERE id = ?1",
    )?
    .execute(params![table as i64, now, outcome.word()])?;
    Ok(rated)
}

/// Keeps the ending notes of table `table`.
fn write_endings(t: &Transaction<'_>, table: TableId, notes: &[EndingNote]) -> Result<(), Failed> {
    let mut insert = t.prepare_cached(
        "INSERT OR REPLACE INTO endings (name, table_id, abandoned, summary) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for n in notes {
        insert.execute(params![n.name, table as i64, n.abandoned, n.summary])?;
    }
    Ok(())
}

/// `name`'s stored rating in `category`, if any.
fn read_rating(t: &Connection, name: &str, category: Category) -> rusqlite::Result<Option<Stored>> {
    t.prepare_cached(
        "SELECT rating, deviation, volatility, games, wins, last_played \
         FROM ratings WHERE name = ?1 AND category = ?2",
    )?
    .query_row(params![name, category.id()], |r| {
        Ok(Stored {
            rating: Rating {
                rating: r.get(0)?,
                deviation: r.get(1)?,
                volatility: r.get(2)?,
            },
            games: r.get(3)?,
            wins: r.get(4)?,
            last_played: r.get(5)?,
        })
    })
    .optional()
}

/// A rating row from (name, rating, deviation, volatility, games, wins,
/// last_played, computer).
fn read_rating_row(r: &rusqlite::Row<'_>, category: Category) -> rusqlite::Result<RatingRow> {
    Ok(RatingRow {
        name: r.get(0)?,
        category,
        rating: Rating {
            rating: r.get(1)?,
            deviation: r.get(2)?,
            volatility: r.get(3)?,
        },
        games: r.get(4)?,
        wins: r.get(5)?,
        last_played: r.get(6)?,
        computer: r.get(7)?,
        bot: r.get("bot")?,
    })
}

/// A table's results, by seat.
fn read_results(t: &Connection, table: TableId) -> rusqlite::Result<Vec<ResultRow>> {
    let mut stmt = t.prepare_cached(
        "SELECT seat, name, computer, score, won, abandoned, side, place \
         FROM results WHERE table_id = ?1 ORDER BY seat",
    )?;
    let rows = stmt.query_map(params![table as i64], |r| {
        Ok(ResultRow {
            seat: r.get::<_, i64>(0)? as usize,
            name: r.get(1)?,
            computer: r.get(2)?,
            score: r.get(3)?,
            won: r.get(4)?,
            abandoned: r.get(5)?,
            side: r.get::<_, Option<i64>>(6)?.map(|s| s as usize),
            place: r.get::<_, Option<i64>>(7)?.map(|p| p as usize),
        })
    })?;
    rows.collect()
}

/// What the database says of where a table runs, asked for one name.
pub(super) struct LeaseRow {
    pub status: String,
    pub owner: Option<String>,
    pub until: Option<i64>,
    /// The lease owner's address.
    pub address: Option<String>,
    /// A private table's invitation code.
    pub code: Option<String>,
    /// Whether the name asked about sat at the table.
    pub seated: bool,
}

/// A table's place from its row.
pub(super) fn place_of(row: Option<LeaseRow>, now_ms: i64) -> Place {
    let Some(row) = row else {
        return Place::Nowhere;
    };
    if row.status == "over" {
        return Place::Over {
            code: row.code,
            seated: row.seated,
        };
    }
    match (row.owner, row.until, row.address) {
        (Some(instance), Some(until), Some(address)) if until >= now_ms => {
            Place::Held { instance, address }
        }
        _ => Place::Free,
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
        // Immediate: the write lock is taken first, so a batch never fails
        // on a snapshot another connection to the file has moved past (it
        // waits its turn instead).
        let tx = match conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate) {
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

/// Every unfinished table (or only table `only`) with its seats and log.
fn load(t: &Connection, only: Option<TableId>) -> Result<Vec<StoredTable>, Loaded> {
    read_tables(t, only, false)
}

/// Every unfinished table (`over`: every table that is over), or only
/// table `only`, with its seats and log.
fn read_tables(
    t: &Connection,
    only: Option<TableId>,
    over: bool,
) -> Result<Vec<StoredTable>, Loaded> {
    let mut tables = Vec::new();
    {
        let mut stmt = t.prepare(
            "SELECT id, game, setup, seed, code, rated, bots_allowed, arena, arena_round \
             FROM tables WHERE (status = 'over') = ?2 \
             AND (?1 IS NULL OR id = ?1) ORDER BY id",
        )?;
        let rows = stmt.query_map(params![only.map(|i| i as i64), over], |r| {
            Ok((
                (
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, Option<String>>(4)?,
                    r.get::<_, bool>(5)?,
                ),
                (r.get::<_, bool>(6)?, super::arena_of(r.get(7)?, r.get(8)?)),
            ))
        })?;
        for row in rows {
            let ((id, game, setup, seed, code, rated), (bots_allowed, arena)) = row?;
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
                rated,
                stand_in: Vec::new(),
                bots: Vec::new(),
                bots_allowed,
                arena,
            });
        }
    }
    for table in &mut tables {
        let mut stmt = t.prepare(
            "SELECT s.level, s.owner, COALESCE(p.bot, 0) FROM seats s \
             LEFT JOIN players p ON p.name = s.owner WHERE s.table_id = ?1 ORDER BY s.seat",
        )?;
        let seats: Vec<(Option<String>, Option<String>, bool)> = stmt
            .query_map(params![table.id as i64], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?
            .collect::<rusqlite::Result<_>>()?;
        table.bots = seats.iter().map(|(_, _, bot)| *bot).collect();
        table.seats = seats
            .into_iter()
            .map(|(level, owner, _)| (level, owner))
            .collect();
        let mut stmt = t.prepare(
            "SELECT seq, seat, action, client_id, stand_in FROM moves WHERE table_id = ?1 ORDER BY seq",
        )?;
        let rows = stmt.query_map(params![table.id as i64], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, Option<i64>>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<i64>>(3)?,
                r.get::<_, bool>(4)?,
            ))
        })?;
        for (k, row) in rows.enumerate() {
            let (seq, seat, action, client_id, stand_in) = row?;
            if stand_in {
                table.stand_in.push(k);
            }
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
    Ok(tables)
}
