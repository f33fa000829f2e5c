//! The PostgreSQL backend: one database that several server instances
//! share, through a pool of connections (`deadpool-postgres`).
//!
//! Each change is one transaction, committed (PostgreSQL flushes its log
//! at every commit, grouping concurrent ones) before the call answers.
//! Leases are timed by the database's clock, so instances on machines
//! whose clocks disagree still agree on when a lease runs out. A change to
//! a table locks the table's row (`FOR SHARE`) and checks that this
//! instance holds its lease; a takeover updates that row, so the two are
//! ordered: a move is either in the log before the takeover reads it, or
//! refused. A finished game's players' ratings are read `FOR UPDATE`, in
//! the order of their names: two games of one player finishing at once
//! on two instances are rated one after the other, neither update lost.

use super::rate::{self, Stored};
use super::{
    EndingNote, EndingRow, FinishedGame, GameRecordRow, GameSummaryRow, HistoryRow, Instance,
    MIGRATIONS, NewTable, Outcome, Place, PlayerRecord, RatingChange, RatingRow, ResultRow,
    StoreError, StoredTable, Taken, game_of, now, setup_of, status_word,
};
use deadpool_postgres::{GenericClient, Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use game_rating::{Category, Rating};
use std::sync::Arc;
use std::time::Duration;
use table_protocol::{BotInfo, GameKind, SeatRef, TableId, TableStatus, TableSummary};

/// The database's clock, in milliseconds since 1970.
const NOW_MS: &str = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

/// Connections per instance: enough for every table's writes to overlap.
const POOL: usize = 16;

/// The key of the lock that makes two instances starting at once migrate
/// one after the other.
const MIGRATION_LOCK: i64 = 0x6d69_6c6c_6573;

/// The pools of connections to the shared database.
pub struct Postgres {
    pool: Pool,
    /// The leases' own connection: a renewal never waits behind the
    /// moves of a busy instance, or its leases would run out.
    leases: Pool,
}

fn pool_error(e: impl std::fmt::Display) -> StoreError {
    StoreError::Pool(e.to_string())
}

/// TLS to PostgreSQL, used as its `sslmode` says (`prefer` by default):
/// the server's certificate is checked against the system's authorities
/// and `ca`, and its name against the host's.
fn tls(
    ca: Option<&std::path::Path>,
) -> Result<tokio_postgres_rustls::MakeRustlsConnect, StoreError> {
    use rustls_pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_native_certs::load_native_certs().certs {
        let _ = roots.add(cert);
    }
    if let Some(path) = ca {
        let bad = |e: &dyn std::fmt::Display| {
            StoreError::BadUrl(format!(
                "cannot read the database's authority {}: {e}",
                path.display()
            ))
        };
        for cert in rustls_pki_types::CertificateDer::pem_file_iter(path).map_err(|e| bad(&e))? {
            roots.add(cert.map_err(|e| bad(&e))?).map_err(|e| bad(&e))?;
        }
    }
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| StoreError::BadUrl(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

fn lease_ms(instance: &Instance) -> i64 {
    i64::try_from(instance.lease.as_millis()).unwrap_or(i64::MAX / 4)
}

impl Postgres {
    /// Connects to `url`, migrates the schema (refusing a newer one) and
    /// registers `instance`.
    pub async fn open(
        url: &str,
        instance: &Instance,
        secrets: &super::PgSecrets,
    ) -> Result<Postgres, StoreError> {
        let mut config: tokio_postgres::Config = url.parse().map_err(|e| {
            StoreError::BadUrl(format!(
                "the --database address is not a PostgreSQL one: {e}"
            ))
        })?;
        if config.get_password().is_none()
            && let Some(password) = &secrets.password
        {
            config.password(password.as_bytes());
        }
        let tls = tls(secrets.ca.as_deref())?;
        let build = |size: usize, wait: Duration| {
            let manager = Manager::from_config(
                config.clone(),
                tls.clone(),
                ManagerConfig {
                    recycling_method: RecyclingMethod::Fast,
                },
            );
            Pool::builder(manager)
                .max_size(size)
                .runtime(Runtime::Tokio1)
                .wait_timeout(Some(wait))
                .create_timeout(Some(wait))
                .build()
                .map_err(pool_error)
        };
        let pg = Postgres {
            pool: build(POOL, Duration::from_secs(10))?,
            leases: build(1, (instance.lease / 2).max(Duration::from_secs(1)))?,
        };
        pg.migrate().await?;
        let client = pg.client().await?;
        client
            .execute(
                "INSERT INTO instances (id, address, started_at, seen_at) VALUES ($1, $2, $3, $3) \
                 ON CONFLICT (id) DO UPDATE SET address = $2, seen_at = $3",
                &[&instance.id, &instance.address, &now()],
            )
            .await?;
        // An earlier run of this instance (the same address) that died or
        // was restarted: its tables are free now, not after its leases run
        // out, and nobody is forwarded to it, that is, back here.
        client
            .execute(
                "UPDATE tables SET lease_until = 0 WHERE lease_owner IN \
                 (SELECT id FROM instances WHERE address = $2 AND id != $1)",
                &[&instance.id, &instance.address],
            )
            .await?;
        client
            .execute(
                "DELETE FROM instances WHERE address = $2 AND id != $1",
                &[&instance.id, &instance.address],
            )
            .await?;
        Ok(pg)
    }

    pub(super) async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        self.pool.get().await.map_err(pool_error)
    }

    /// Brings the schema up to date, one instance at a time.
    async fn migrate(&self) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .await?;
        // "Already exists" is no news at every start.
        tx.batch_execute(
            "SET LOCAL client_min_messages = warning; \
             CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)",
        )
        .await?;
        let found: Option<i64> = tx
            .query_opt("SELECT version FROM schema_version", &[])
            .await?
            .map(|r| r.get(0));
        let version = match found {
            Some(v) => v,
            None => {
                tx.execute("INSERT INTO schema_version (version) VALUES (0)", &[])
                    .await?;
                0
            }
        };
        let known = MIGRATIONS.len();
        let from = usize::try_from(version).unwrap_or(usize::MAX);
        if from > known {
            return Err(StoreError::TooNew {
                found: version,
                known,
            });
        }
        for migration in &MIGRATIONS[from..] {
            tx.batch_execute(migration.postgres).await?;
        }
        tx.execute("UPDATE schema_version SET version = $1", &[&(known as i64)])
            .await?;
        tx.commit().await?;
        Ok(())
    }

    pub(super) async fn name_of(&self, hash: String) -> Result<Option<String>, StoreError> {
        let client = self.client().await?;
        let stmt = client
            .prepare_cached("SELECT name FROM players WHERE token_hash = $1")
            .await?;
        Ok(client.query_opt(&stmt, &[&hash]).await?.map(|r| r.get(0)))
    }

    pub(super) async fn claim(
        &self,
        name: String,
        hash: String,
        bot: Option<(String, String)>,
    ) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let is_bot = bot.is_some();
        let (owner, description) = bot.unzip();
        // Two instances registering one name at once: the key decides,
        // and both read back who won.
        client
            .execute(
                "INSERT INTO players (name, token_hash, created_at, seen_at, bot, bot_owner, bot_description) \
                 VALUES ($1, $2, $3, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
                &[&name, &hash, &now(), &is_bot, &owner, &description],
            )
            .await?;
        let owner: Option<String> = client
            .query_opt("SELECT token_hash FROM players WHERE name = $1", &[&name])
            .await?
            .map(|r| r.get(0));
        Ok(owner.as_deref() == Some(hash.as_str()))
    }

    pub(super) async fn bot_info(&self, name: String) -> Result<Option<BotInfo>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt(
                "SELECT bot, bot_owner, bot_description FROM players WHERE name = $1",
                &[&name],
            )
            .await?
            .map(|r| (r.get(0), r.get(1), r.get(2)));
        Ok(super::bot_of(row))
    }

    pub(super) async fn update_bot(
        &self,
        name: String,
        owner: String,
        description: String,
    ) -> Result<(), StoreError> {
        let client = self.client().await?;
        client
            .execute(
                "UPDATE players SET bot_owner = $2, bot_description = $3 WHERE name = $1 AND bot",
                &[&name, &owner, &description],
            )
            .await?;
        Ok(())
    }

    pub(super) async fn replace_token(
        &self,
        name: String,
        old: String,
        new: String,
    ) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let changed = client
            .execute(
                "UPDATE players SET token_hash = $3 WHERE name = $1 AND token_hash = $2",
                &[&name, &old, &new],
            )
            .await?;
        Ok(changed == 1)
    }

    pub(super) async fn sign_out(
        &self,
        name: String,
        old: String,
        nobody: String,
    ) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let t = client.transaction().await?;
        let freed = t.execute(super::LET_GO, &[&name, &old]).await? == 1;
        if !freed {
            t.execute(
                "UPDATE players SET token_hash = $3 WHERE name = $1 AND token_hash = $2",
                &[&name, &old, &nobody],
            )
            .await?;
        }
        t.commit().await?;
        Ok(freed)
    }

    pub(super) async fn seen(&self, name: String, now: i64) -> Result<(), StoreError> {
        let client = self.client().await?;
        client
            .execute(
                "UPDATE players SET seen_at = $2 WHERE name = $1",
                &[&name, &now],
            )
            .await?;
        Ok(())
    }

    pub(super) async fn sweep(
        &self,
        names_before: i64,
        tables_before: i64,
    ) -> Result<super::Swept, StoreError> {
        let mut client = self.client().await?;
        let t = client.transaction().await?;
        // Each statement names only some of the parameters: PostgreSQL
        // wants exactly those.
        let mut counts = [0u64; 3];
        for (k, sql) in super::SWEEP.iter().enumerate() {
            let uses_names = sql.contains("$1");
            let uses_tables = sql.contains("$2");
            let n = match (uses_names, uses_tables) {
                (true, true) => t.execute(*sql, &[&names_before, &tables_before]).await?,
                (true, false) => t.execute(*sql, &[&names_before]).await?,
                _ => {
                    t.execute(&sql.replace("$2", "$1"), &[&tables_before])
                        .await?
                }
            };
            counts[k] = n;
        }
        t.commit().await?;
        Ok(super::Swept {
            names: counts[2],
            tables: counts[1],
        })
    }

    pub(super) async fn seats_of(&self, name: String) -> Result<Vec<SeatRef>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                "SELECT s.table_id, t.game, s.seat FROM seats s JOIN tables t ON t.id = s.table_id \
                 WHERE s.owner = $1 AND t.status != 'over' ORDER BY s.table_id, s.seat",
                &[&name],
            )
            .await?;
        Ok(rows
            .iter()
            .filter_map(|r| {
                let game: String = r.get(1);
                Some(SeatRef {
                    table: r.get::<_, i64>(0) as TableId,
                    game: game_of(&game)?,
                    seat: r.get::<_, i64>(2) as usize,
                })
            })
            .collect())
    }

    pub(super) async fn create(
        &self,
        table: NewTable,
        instance: Arc<Instance>,
    ) -> Result<TableId, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        let row = tx
            .query_one(
                &format!(
                    "INSERT INTO tables (game, setup, seats, seed, code, status, created_at, lease_owner, lease_until, rated, \
                     bots_allowed, arena, arena_round) \
                     VALUES ($1, $2, $3, $4, $5, 'waiting', $6, $7, {NOW_MS} + $8, $9, $10, $11, $12) RETURNING id"
                ),
                &[
                    &table.game.name(),
                    &table.setup.to_string(),
                    &(table.levels.len() as i64),
                    &(table.seed as i64),
                    &table.code,
                    &now(),
                    &instance.id,
                    &lease_ms(&instance),
                    &table.rated,
                    &table.bots_allowed,
                    &table.arena.as_ref().map(|a| a.arena.clone()),
                    &table.arena.as_ref().map(|a| i64::from(a.round)),
                ],
            )
            .await?;
        let id: i64 = row.get(0);
        for (seat, level) in table.levels.iter().enumerate() {
            // A seat kept for an invited bot is the bot's from the start.
            let owner = table.invited.get(seat).cloned().flatten();
            tx.execute(
                "INSERT INTO seats (table_id, seat, level, owner) VALUES ($1, $2, $3, $4)",
                &[&id, &(seat as i64), level, &owner],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(id as TableId)
    }

    pub(super) async fn set_owner(
        &self,
        table: TableId,
        seat: usize,
        owner: Option<String>,
        me: String,
    ) -> Result<(), StoreError> {
        let client = self.client().await?;
        let stmt = client
            .prepare_cached(
                "UPDATE seats SET owner = $3 WHERE table_id = $1 AND seat = $2 \
                 AND EXISTS (SELECT 1 FROM tables WHERE id = $1 AND lease_owner = $4 FOR SHARE)",
            )
            .await?;
        let changed = client
            .execute(&stmt, &[&(table as i64), &(seat as i64), &owner, &me])
            .await?;
        if changed == 0 {
            return Err(StoreError::LeaseLost(table));
        }
        Ok(())
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
        let client = self.client().await?;
        // One statement, one round trip: the row lock and the lease check
        // come with the insert.
        let stmt = client
            .prepare_cached(
                "INSERT INTO moves (table_id, seq, seat, action, client_id, stand_in) \
                 SELECT id, $2, $3, $4, $5, $7 FROM tables WHERE id = $1 AND lease_owner = $6 FOR SHARE",
            )
            .await?;
        let written = client
            .execute(
                &stmt,
                &[
                    &(table as i64),
                    &(seq as i64),
                    &seat.map(|s| s as i64),
                    &action.to_string(),
                    &client_id.map(|i| i as i64),
                    &me,
                    &stand_in,
                ],
            )
            .await?;
        if written == 0 {
            return Err(StoreError::LeaseLost(table));
        }
        Ok(())
    }

    pub(super) async fn set_status(
        &self,
        table: TableId,
        status: TableStatus,
        me: String,
    ) -> Result<(), StoreError> {
        let client = self.client().await?;
        let changed = client
            .execute(
                "UPDATE tables SET status = $2 WHERE id = $1 AND lease_owner = $3",
                &[&(table as i64), &status_word(status), &me],
            )
            .await?;
        if changed == 0 {
            return Err(StoreError::LeaseLost(table));
        }
        Ok(())
    }

    pub(super) async fn finish(
        &self,
        table: TableId,
        game: FinishedGame,
        me: String,
        now: i64,
    ) -> Result<Vec<RatingChange>, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        let rated = end(&tx, table, &me, Outcome::Finished, now).await?;
        if let Some(forfeit) = &game.forfeit {
            tx.execute(
                "UPDATE tables SET forfeit_seat = $2, forfeit_reason = $3 WHERE id = $1",
                &[&(table as i64), &(forfeit.seat as i64), &forfeit.reason],
            )
            .await?;
        }
        if let Some((kind, record)) = &game.score {
            tx.execute(
                "INSERT INTO scores (game, finished_at, record) VALUES ($1, $2, $3)",
                &[&kind.name(), &now, record],
            )
            .await?;
        }
        // Every seat in one statement: a round trip costs more than a row.
        let results = &game.results;
        let insert = tx
            .prepare_cached(
                "INSERT INTO results (table_id, seat, name, computer, score, won, side, place, abandoned) \
                 SELECT $1, u.* FROM unnest($2::BIGINT[], $3::TEXT[], $4::BOOLEAN[], $5::BIGINT[], \
                 $6::BOOLEAN[], $7::BIGINT[], $8::BIGINT[], $9::BOOLEAN[]) \
                 AS u(seat, name, computer, score, won, side, place, abandoned) \
                 ON CONFLICT (table_id, seat) DO UPDATE SET name = EXCLUDED.name, \
                 computer = EXCLUDED.computer, score = EXCLUDED.score, won = EXCLUDED.won, \
                 side = EXCLUDED.side, place = EXCLUDED.place, abandoned = EXCLUDED.abandoned",
            )
            .await?;
        tx.execute(
            &insert,
            &[
                &(table as i64),
                &(0..results.len() as i64).collect::<Vec<i64>>(),
                &results.iter().map(|r| r.name.clone()).collect::<Vec<_>>(),
                &results.iter().map(|r| r.computer).collect::<Vec<_>>(),
                &results.iter().map(|r| r.score).collect::<Vec<_>>(),
                &results.iter().map(|r| r.won).collect::<Vec<_>>(),
                &results.iter().map(|r| r.side as i64).collect::<Vec<_>>(),
                &results.iter().map(|r| r.place as i64).collect::<Vec<_>>(),
                &results.iter().map(|r| r.abandoned).collect::<Vec<_>>(),
            ],
        )
        .await?;
        let mut changes = Vec::new();
        if let (true, Some(category)) = (rated, game.category) {
            changes = rate_in(&tx, table, category, results, now).await?;
        }
        write_endings(&tx, table, &game.endings).await?;
        tx.commit().await?;
        Ok(changes)
    }

    pub(super) async fn close(
        &self,
        table: TableId,
        outcome: Outcome,
        endings: Vec<EndingNote>,
        me: String,
        now: i64,
    ) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        end(&tx, table, &me, outcome, now).await?;
        write_endings(&tx, table, &endings).await?;
        tx.commit().await?;
        Ok(())
    }

    pub(super) async fn take_endings(&self, name: String) -> Result<Vec<EndingRow>, StoreError> {
        let client = self.client().await?;
        // Taken and read in one statement: two connections of one name
        // asking at once do not both get a note.
        let rows = client
            .query(
                "WITH taken AS (DELETE FROM endings WHERE name = $1 \
                   RETURNING name, table_id, abandoned, summary) \
                 SELECT e.table_id, t.game, t.setup, t.seats, e.abandoned, e.summary, \
                 h.before_rating, h.before_deviation, h.before_volatility, \
                 h.after_rating, h.after_deviation, h.after_volatility \
                 FROM taken e JOIN tables t ON t.id = e.table_id \
                 LEFT JOIN rating_history h ON h.table_id = e.table_id AND h.name = e.name \
                 ORDER BY t.finished_at, e.table_id",
                &[&name],
            )
            .await?;
        let mut notes = Vec::new();
        for r in &rows {
            let game: String = r.try_get(1)?;
            let Some(game) = game_of(&game) else { continue };
            let setup: String = r.try_get(2)?;
            let change = match (
                r.try_get::<_, Option<f64>>(6)?,
                r.try_get::<_, Option<f64>>(9)?,
            ) {
                (Some(before), Some(after)) => Some((
                    Rating {
                        rating: before,
                        deviation: r.try_get(7)?,
                        volatility: r.try_get(8)?,
                    },
                    Rating {
                        rating: after,
                        deviation: r.try_get(10)?,
                        volatility: r.try_get(11)?,
                    },
                )),
                _ => None,
            };
            notes.push(EndingRow {
                table: r.try_get::<_, i64>(0)? as TableId,
                game,
                setup: setup_of(&setup),
                seats: r.try_get::<_, i64>(3)? as usize,
                abandoned: r.try_get(4)?,
                summary: r.try_get(5)?,
                change,
            });
        }
        Ok(notes)
    }

    pub(super) async fn ratings(
        &self,
        category: Category,
        names: Vec<String>,
    ) -> Result<Vec<RatingRow>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                "SELECT ratings.name, rating, deviation, volatility, games, wins, last_played, computer, \
                 COALESCE(p.bot, FALSE) AS bot \
                 FROM ratings LEFT JOIN players p ON p.name = ratings.name \
                 WHERE category = $1 AND ratings.name = ANY($2) AND games > 0",
                &[&category.id(), &names],
            )
            .await?;
        let mut found = Vec::new();
        for r in &rows {
            found.push(rating_row(r, category)?);
        }
        // In the order asked.
        Ok(names
            .iter()
            .filter_map(|n| found.iter().find(|r| &r.name == n).cloned())
            .collect())
    }

    pub(super) async fn ladder(
        &self,
        category: Category,
        limit: usize,
    ) -> Result<Vec<RatingRow>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                "SELECT ratings.name, rating, deviation, volatility, games, wins, last_played, computer, \
                 COALESCE(p.bot, FALSE) AS bot \
                 FROM ratings LEFT JOIN players p ON p.name = ratings.name \
                 WHERE category = $1 AND games > 0 \
                 ORDER BY rating DESC, ratings.name LIMIT $2",
                &[&category.id(), &i64::try_from(limit).unwrap_or(i64::MAX)],
            )
            .await?;
        rows.iter().map(|r| rating_row(r, category)).collect()
    }

    pub(super) async fn player(
        &self,
        name: String,
        limit: usize,
    ) -> Result<Option<PlayerRecord>, StoreError> {
        let client = self.client().await?;
        let known: bool = client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM players WHERE name = $1) \
                 OR EXISTS (SELECT 1 FROM ratings WHERE name = $1) \
                 OR EXISTS (SELECT 1 FROM results WHERE name = $1)",
                &[&name],
            )
            .await?
            .try_get(0)?;
        if !known {
            return Ok(None);
        }
        let mut ratings = Vec::new();
        for r in &client
            .query(
                "SELECT ratings.name, rating, deviation, volatility, games, wins, last_played, computer, \
                 category, COALESCE(p.bot, FALSE) AS bot \
                 FROM ratings LEFT JOIN players p ON p.name = ratings.name \
                 WHERE ratings.name = $1 AND games > 0 ORDER BY category",
                &[&name],
            )
            .await?
        {
            let id: String = r.try_get(8)?;
            // A category of a newer program is left out.
            if let Some(category) = Category::parse(&id) {
                ratings.push(rating_row(r, category)?);
            }
        }
        let mut history = Vec::new();
        for r in &client
            .query(
                "SELECT table_id, category, at, before_rating, after_rating, after_deviation \
                 FROM rating_history WHERE name = $1 ORDER BY at, table_id",
                &[&name],
            )
            .await?
        {
            let id: String = r.try_get(1)?;
            if let Some(category) = Category::parse(&id) {
                history.push(HistoryRow {
                    table: r.try_get::<_, i64>(0)? as TableId,
                    category,
                    at: r.try_get(2)?,
                    before: r.try_get(3)?,
                    after: r.try_get(4)?,
                    deviation: r.try_get(5)?,
                });
            }
        }
        let mut games = Vec::new();
        for r in &client
            .query(
                "SELECT t.id, t.game, t.setup, t.seats, t.rated, t.finished_at, t.code IS NOT NULL \
                 FROM tables t WHERE t.status = 'over' AND t.finished_at IS NOT NULL \
                 AND t.id IN (SELECT table_id FROM results WHERE name = $1) \
                 ORDER BY t.finished_at DESC, t.id DESC LIMIT $2",
                &[&name, &i64::try_from(limit).unwrap_or(i64::MAX)],
            )
            .await?
        {
            let game: String = r.try_get(1)?;
            let Some(game) = game_of(&game) else { continue };
            let setup: String = r.try_get(2)?;
            games.push(GameSummaryRow {
                table: r.try_get::<_, i64>(0)? as TableId,
                game,
                setup: setup_of(&setup),
                seats: r.try_get::<_, i64>(3)? as usize,
                rated: r.try_get(4)?,
                finished_at: r.try_get(5)?,
                code_private: r.try_get(6)?,
                results: Vec::new(),
            });
        }
        for g in &mut games {
            g.results = read_results(&client, g.table).await?;
        }
        Ok(Some(PlayerRecord {
            name,
            ratings,
            history,
            games,
        }))
    }

    pub(super) async fn game(&self, table: TableId) -> Result<Option<GameRecordRow>, StoreError> {
        let mut client = self.client().await?;
        // One snapshot: the table, its log and results agree.
        let tx = client
            .build_transaction()
            .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .await?;
        let Some(row) = tx
            .query_opt(
                "SELECT id, game, setup, seed, code, rated, outcome, finished_at, \
                 bots_allowed, arena, arena_round, forfeit_seat, forfeit_reason \
                 FROM tables WHERE id = $1 AND status = 'over'",
                &[&(table as i64)],
            )
            .await?
        else {
            return Ok(None);
        };
        let stored = read_table(&tx, &row).await?.map_err(StoreError::Corrupt)?;
        let outcome: Option<String> = row.try_get(6)?;
        let record = GameRecordRow {
            results: read_results(&tx, table).await?,
            outcome: outcome.as_deref().and_then(Outcome::parse),
            finished_at: row.try_get(7)?,
            private: stored.code.is_some(),
            table: stored,
            forfeit: super::forfeit_of(row.try_get(11)?, row.try_get(12)?),
        };
        tx.commit().await?;
        Ok(Some(record))
    }

    pub(super) async fn arena_games(
        &self,
        arena: String,
    ) -> Result<Vec<super::ArenaGameRow>, StoreError> {
        let client = self.client().await?;
        let rows = client.query(super::ARENA_GAMES, &[&arena]).await?;
        let mut read = Vec::with_capacity(rows.len());
        for r in &rows {
            read.push((
                r.try_get(0)?,
                r.try_get(1)?,
                r.try_get(2)?,
                r.try_get(3)?,
                r.try_get(4)?,
                r.try_get(5)?,
                r.try_get(6)?,
                r.try_get(7)?,
            ));
        }
        Ok(super::arena_games_of(read))
    }

    pub(super) async fn renew(
        &self,
        tables: Vec<TableId>,
        instance: Arc<Instance>,
    ) -> Result<Vec<TableId>, StoreError> {
        let client = self.leases.get().await.map_err(pool_error)?;
        let ids: Vec<i64> = tables.iter().map(|&t| t as i64).collect();
        let rows = client
            .query(
                &format!(
                    "UPDATE tables SET lease_until = {NOW_MS} + $3 \
                     WHERE id = ANY($1) AND lease_owner = $2 RETURNING id"
                ),
                &[&ids, &instance.id, &lease_ms(&instance)],
            )
            .await?;
        client
            .execute(
                "UPDATE instances SET seen_at = $2 WHERE id = $1",
                &[&instance.id, &now()],
            )
            .await?;
        Ok(rows.iter().map(|r| r.get::<_, i64>(0) as TableId).collect())
    }

    pub(super) async fn take_over(
        &self,
        only: Option<TableId>,
        limit: usize,
        skip: Vec<TableId>,
        instance: Arc<Instance>,
    ) -> Result<Vec<Taken>, StoreError> {
        let skip: Vec<i64> = skip.iter().map(|&t| t as i64).collect();
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        // Rows another instance is taking at this moment are skipped, not
        // waited for; the lock re-reads a row changed meanwhile.
        let rows = tx
            .query(
                &format!(
                    "UPDATE tables SET lease_owner = $1, lease_until = {NOW_MS} + $2 WHERE id IN ( \
                       SELECT id FROM tables WHERE status != 'over' \
                       AND (lease_owner IS NULL OR lease_until < {NOW_MS}) \
                       AND ($3::BIGINT IS NULL OR id = $3) AND NOT (id = ANY($5)) \
                       AND ($3::BIGINT IS NOT NULL OR lease_owner IS DISTINCT FROM $1) \
                       ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED) \
                     RETURNING id, game, setup, seed, code, rated, bots_allowed, arena, arena_round"
                ),
                &[
                    &instance.id,
                    &lease_ms(&instance),
                    &only.map(|i| i as i64),
                    &i64::try_from(limit).unwrap_or(i64::MAX),
                    &skip,
                ],
            )
            .await?;
        let mut tables = Vec::new();
        for row in rows {
            let id: i64 = row.try_get(0)?;
            match read_table(&tx, &row).await? {
                Ok(table) => tables.push(Ok(table)),
                Err(why) => tables.push(Err((id as TableId, why))),
            }
        }
        tx.commit().await?;
        Ok(tables)
    }

    pub(super) async fn release(&self, table: TableId, me: String) -> Result<(), StoreError> {
        let client = self.client().await?;
        client
            .execute(
                "UPDATE tables SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2",
                &[&(table as i64), &me],
            )
            .await?;
        Ok(())
    }

    pub(super) async fn place(&self, id: TableId, name: String) -> Result<Place, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt(
                &format!(
                    "SELECT t.status, t.lease_owner, t.lease_until, i.address, {NOW_MS}, t.code, \
                     EXISTS (SELECT 1 FROM seats s WHERE s.table_id = t.id AND s.owner = $2) \
                     FROM tables t LEFT JOIN instances i ON i.id = t.lease_owner WHERE t.id = $1"
                ),
                &[&(id as i64), &name],
            )
            .await?;
        let now: i64 = row.as_ref().map_or(0, |r| r.get(4));
        Ok(super::sqlite::place_of(
            row.map(|r| super::sqlite::LeaseRow {
                status: r.get(0),
                owner: r.get(1),
                until: r.get(2),
                address: r.get(3),
                code: r.get(5),
                seated: r.get(6),
            }),
            now,
        ))
    }

    pub(super) async fn publish(
        &self,
        lines: Vec<(TableId, String)>,
        me: String,
    ) -> Result<(), StoreError> {
        if lines.is_empty() {
            return Ok(());
        }
        let (ids, texts): (Vec<i64>, Vec<String>) =
            lines.into_iter().map(|(id, l)| (id as i64, l)).unzip();
        let client = self.client().await?;
        client
            .execute(
                "UPDATE tables t SET summary = u.line FROM unnest($1::BIGINT[], $2::TEXT[]) AS u(id, line) \
                 WHERE t.id = u.id AND t.lease_owner = $3",
                &[&ids, &texts, &me],
            )
            .await?;
        Ok(())
    }

    pub(super) async fn lobby(&self, me: String) -> Result<Vec<TableSummary>, StoreError> {
        let client = self.client().await?;
        let lines: Vec<String> = client
            .query(
                "SELECT summary FROM tables WHERE status != 'over' AND summary IS NOT NULL \
                 AND (lease_owner IS NULL OR lease_owner != $1)",
                &[&me],
            )
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect();
        Ok(super::read_lines(&lines))
    }

    pub(super) async fn retire(&self, me: String) -> Result<(), StoreError> {
        let client = self.client().await?;
        client
            .execute(
                "UPDATE tables SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1",
                &[&me],
            )
            .await?;
        client
            .execute("DELETE FROM instances WHERE id = $1", &[&me])
            .await?;
        Ok(())
    }

    pub(super) async fn scores(&self, game: GameKind) -> Result<Vec<String>, StoreError> {
        let client = self.client().await?;
        Ok(client
            .query(
                "SELECT record FROM scores WHERE game = $1 ORDER BY id",
                &[&game.name()],
            )
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }
}

/// A count stored as BIGINT.
fn count(n: i64) -> u32 {
    u32::try_from(n.max(0)).unwrap_or(u32::MAX)
}

/// Ends table `table` as `outcome` (over, finished now) if instance `me`
/// holds its lease and it is not over yet; answers whether it is rated.
/// The table's row stays locked until the transaction ends: whoever
/// comes second waits, then finds it over.
async fn end(
    tx: &deadpool_postgres::Transaction<'_>,
    table: TableId,
    me: &str,
    outcome: Outcome,
    now: i64,
) -> Result<bool, StoreError> {
    let stmt = tx
        .prepare_cached(
            "UPDATE tables SET status = 'over', finished_at = $2, outcome = $3 \
             WHERE id = $1 AND lease_owner = $4 AND status != 'over' RETURNING rated",
        )
        .await?;
    if let Some(row) = tx
        .query_opt(&stmt, &[&(table as i64), &now, &outcome.word(), &me])
        .await?
    {
        return Ok(row.try_get(0)?);
    }
    // Refused: say why.
    let owner: Option<Option<String>> = tx
        .query_opt(
            "SELECT lease_owner FROM tables WHERE id = $1",
            &[&(table as i64)],
        )
        .await?
        .map(|r| r.try_get(0))
        .transpose()?;
    if owner.flatten().as_deref() == Some(me) {
        Err(StoreError::Over(table))
    } else {
        Err(StoreError::LeaseLost(table))
    }
}

/// Rates a finished game of `category` in its transaction (see
/// [`super::Store::finish`]): a row for each player new to the category,
/// so that there is one to lock (games 0: never rated, not decayed);
/// every row locked in the order of the names; the new ratings and their
/// history written. A few statements whatever the number of players.
async fn rate_in(
    tx: &deadpool_postgres::Transaction<'_>,
    table: TableId,
    category: Category,
    results: &[super::SeatRow],
    now: i64,
) -> Result<Vec<RatingChange>, StoreError> {
    let id = category.id();
    let names = rate::names(results);
    let starts: Vec<Rating> = names
        .iter()
        .map(|n| game_rating::starting(category, n))
        .collect();
    let fresh = tx
        .prepare_cached(
            "INSERT INTO ratings (name, category, rating, deviation, volatility, games, wins, \
             last_played, computer) \
             SELECT u.name, $1, u.rating, u.deviation, u.volatility, 0, 0, $2, u.computer \
             FROM unnest($3::TEXT[], $4::DOUBLE PRECISION[], $5::DOUBLE PRECISION[], \
             $6::DOUBLE PRECISION[], $7::BOOLEAN[]) AS u(name, rating, deviation, volatility, computer) \
             ORDER BY u.name ON CONFLICT (name, category) DO NOTHING",
        )
        .await?;
    tx.execute(
        &fresh,
        &[
            &id,
            &now,
            &names,
            &starts.iter().map(|r| r.rating).collect::<Vec<_>>(),
            &starts.iter().map(|r| r.deviation).collect::<Vec<_>>(),
            &starts.iter().map(|r| r.volatility).collect::<Vec<_>>(),
            &names
                .iter()
                .map(|n| results.iter().any(|r| &r.name == n && r.computer))
                .collect::<Vec<_>>(),
        ],
    )
    .await?;
    let lock = tx
        .prepare_cached(
            "SELECT name, rating, deviation, volatility, games, wins, last_played FROM ratings \
             WHERE category = $1 AND name = ANY($2) ORDER BY name FOR UPDATE",
        )
        .await?;
    let mut stored: Vec<(String, Stored)> = Vec::new();
    for r in &tx.query(&lock, &[&id, &names]).await? {
        stored.push((
            r.try_get(0)?,
            Stored {
                rating: Rating {
                    rating: r.try_get(1)?,
                    deviation: r.try_get(2)?,
                    volatility: r.try_get(3)?,
                },
                games: count(r.try_get(4)?),
                wins: count(r.try_get(5)?),
                last_played: r.try_get(6)?,
            },
        ));
    }
    let find = |name: &str| stored.iter().find(|(n, _)| n == name).map(|(_, s)| *s);
    let Some(updates) = rate::updates(category, results, find, now) else {
        return Ok(Vec::new());
    };
    let names: Vec<String> = updates.iter().map(|u| u.name.clone()).collect();
    let before: Vec<Rating> = updates.iter().map(|u| u.change.before).collect();
    let after: Vec<Rating> = updates.iter().map(|u| u.change.after).collect();
    let field =
        |ratings: &[Rating], f: fn(&Rating) -> f64| -> Vec<f64> { ratings.iter().map(f).collect() };
    let update = tx
        .prepare_cached(
            "UPDATE ratings r SET rating = u.rating, deviation = u.deviation, \
             volatility = u.volatility, games = u.games, wins = u.wins, last_played = $2, \
             computer = u.computer \
             FROM unnest($3::TEXT[], $4::DOUBLE PRECISION[], $5::DOUBLE PRECISION[], \
             $6::DOUBLE PRECISION[], $7::BIGINT[], $8::BIGINT[], $9::BOOLEAN[]) \
             AS u(name, rating, deviation, volatility, games, wins, computer) \
             WHERE r.category = $1 AND r.name = u.name",
        )
        .await?;
    tx.execute(
        &update,
        &[
            &id,
            &now,
            &names,
            &field(&after, |r| r.rating),
            &field(&after, |r| r.deviation),
            &field(&after, |r| r.volatility),
            &updates
                .iter()
                .map(|u| i64::from(u.games))
                .collect::<Vec<_>>(),
            &updates
                .iter()
                .map(|u| i64::from(u.wins))
                .collect::<Vec<_>>(),
            &updates.iter().map(|u| u.computer).collect::<Vec<_>>(),
        ],
    )
    .await?;
    let history = tx
        .prepare_cached(
            "INSERT INTO rating_history (table_id, name, category, at, \
             before_rating, before_deviation, before_volatility, \
             after_rating, after_deviation, after_volatility) \
             SELECT $1, u.name, $2, $3, u.br, u.bd, u.bv, u.ar, u.ad, u.av \
             FROM unnest($4::TEXT[], $5::DOUBLE PRECISION[], $6::DOUBLE PRECISION[], \
             $7::DOUBLE PRECISION[], $8::DOUBLE PRECISION[], $9::DOUBLE PRECISION[], \
             $10::DOUBLE PRECISION[]) AS u(name, br, bd, bv, ar, ad, av) \
             ON CONFLICT (table_id, name) DO NOTHING",
        )
        .await?;
    tx.execute(
        &history,
        &[
            &(table as i64),
            &id,
            &now,
            &names,
            &field(&before, |r| r.rating),
            &field(&before, |r| r.deviation),
            &field(&before, |r| r.volatility),
            &field(&after, |r| r.rating),
            &field(&after, |r| r.deviation),
            &field(&after, |r| r.volatility),
        ],
    )
    .await?;
    Ok(updates.into_iter().map(|u| u.change).collect())
}

/// Keeps the ending notes of table `table`.
async fn write_endings(
    tx: &deadpool_postgres::Transaction<'_>,
    table: TableId,
    notes: &[EndingNote],
) -> Result<(), StoreError> {
    for n in notes {
        tx.execute(
            "INSERT INTO endings (name, table_id, abandoned, summary) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (name, table_id) DO UPDATE SET abandoned = $3, summary = $4",
            &[&n.name, &(table as i64), &n.abandoned, &n.summary],
        )
        .await?;
    }
    Ok(())
}

/// A rating row from (name, rating, deviation, volatility, games, wins,
/// last_played, computer).
fn rating_row(r: &tokio_postgres::Row, category: Category) -> Result<RatingRow, StoreError> {
    Ok(RatingRow {
        name: r.try_get(0)?,
        category,
        rating: Rating {
            rating: r.try_get(1)?,
            deviation: r.try_get(2)?,
            volatility: r.try_get(3)?,
        },
        games: count(r.try_get(4)?),
        wins: count(r.try_get(5)?),
        last_played: r.try_get(6)?,
        computer: r.try_get(7)?,
        bot: r.try_get("bot")?,
    })
}

/// A table's results, by seat.
async fn read_results(
    client: &impl GenericClient,
    table: TableId,
) -> Result<Vec<ResultRow>, StoreError> {
    let rows = client
        .query(
            "SELECT seat, name, computer, score, won, abandoned, side, place \
             FROM results WHERE table_id = $1 ORDER BY seat",
            &[&(table as i64)],
        )
        .await?;
    let mut results = Vec::new();
    for r in &rows {
        results.push(ResultRow {
            seat: r.try_get::<_, i64>(0)? as usize,
            name: r.try_get(1)?,
            computer: r.try_get(2)?,
            score: r.try_get(3)?,
            won: r.try_get(4)?,
            abandoned: r.try_get(5)?,
            side: r.try_get::<_, Option<i64>>(6)?.map(|s| s as usize),
            place: r.try_get::<_, Option<i64>>(7)?.map(|p| p as usize),
        });
    }
    Ok(results)
}

/// A table's seats and log, from its row (id, game, setup, seed, code, rated,
/// and the columns bots_allowed, arena and arena_round, read by name):
/// the table, or why it cannot be read back (a database failure is the
/// outer error).
async fn read_table(
    tx: &impl GenericClient,
    row: &tokio_postgres::Row,
) -> Result<Result<StoredTable, String>, StoreError> {
    let id: i64 = row.try_get(0)?;
    let game: String = row.try_get(1)?;
    let setup: String = row.try_get(2)?;
    let Some(game) = game_of(&game) else {
        return Ok(Err(format!("table {id}: unknown game {game:?}")));
    };
    let setup = match serde_json::from_str(&setup) {
        Ok(s) => s,
        Err(e) => return Ok(Err(format!("table {id}: setup: {e}"))),
    };
    let mut seats = Vec::new();
    let mut bots = Vec::new();
    for r in tx
        .query(
            "SELECT s.level, s.owner, COALESCE(p.bot, FALSE) FROM seats s \
             LEFT JOIN players p ON p.name = s.owner WHERE s.table_id = $1 ORDER BY s.seat",
            &[&id],
        )
        .await?
    {
        seats.push((r.try_get(0)?, r.try_get(1)?));
        bots.push(r.try_get(2)?);
    }
    let mut moves = Vec::new();
    let rows = tx
        .query(
            "SELECT seq, seat, action, client_id, stand_in FROM moves WHERE table_id = $1 ORDER BY seq",
            &[&id],
        )
        .await?;
    let mut stand_in = Vec::new();
    for (k, r) in rows.iter().enumerate() {
        let seq: i64 = r.try_get(0)?;
        if r.try_get::<_, bool>(4)? {
            stand_in.push(k);
        }
        if seq != k as i64 + 1 {
            return Ok(Err(format!("table {id}: move {} is missing", k + 1)));
        }
        let action: String = r.try_get(2)?;
        let action = match serde_json::from_str(&action) {
            Ok(a) => a,
            Err(e) => return Ok(Err(format!("table {id} move {seq}: {e}"))),
        };
        moves.push((
            r.try_get::<_, Option<i64>>(1)?.map(|s| s as usize),
            action,
            r.try_get::<_, Option<i64>>(3)?.map(|i| i as u64),
        ));
    }
    Ok(Ok(StoredTable {
        id: id as TableId,
        game,
        setup,
        seed: row.try_get::<_, i64>(3)? as u64,
        code: row.try_get(4)?,
        seats,
        moves,
        rated: row.try_get(5)?,
        stand_in,
        bots,
        bots_allowed: row.try_get("bots_allowed")?,
        arena: super::arena_of(row.try_get("arena")?, row.try_get("arena_round")?),
    }))
}
