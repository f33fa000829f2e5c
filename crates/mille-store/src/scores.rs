//! The Mile Bones high-score table: the three best totals that reach the
//! game's goal and the three best spreads (winner's total minus the
//! runner-up's), in SQLite in the data directory. Safe under concurrent games: every change is one
//! immediate transaction and readers wait for writers.

use crate::StoreError;
use rusqlite::{Connection, TransactionBehavior, params};

use std::path::{Path, PathBuf};

/// File name of the database in the data directory.
pub const SCORES_FILE: &str = "scores.db";
/// Entries kept per table.
pub const KEEP: usize = 3;
/// A total must reach this to enter the table of totals: the points that
/// win a game, from the engine's scoring table.
pub const MIN_TOTAL: u32 = mille_engine::rules::STANDARD_SCORING.game as u32;

/// Which of the two tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreKind {
    /// A game total of at least [`MIN_TOTAL`].
    Total,
    /// A winning margin.
    Spread,
}

impl ScoreKind {
    const fn id(self) -> &'static str {
        match self {
            ScoreKind::Total => "total",
            ScoreKind::Spread => "spread",
        }
    }
}

/// One line of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HighScore {
    /// Who.
    pub name: String,
    /// Points (a total or a spread).
    pub points: u32,
    /// The rules of that game.
    pub rules: String,
    /// When, in seconds since 1970.
    pub at: i64,
}

/// Both tables, best first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HighScores {
    /// The best totals of at least [`MIN_TOTAL`].
    pub totals: Vec<HighScore>,
    /// The best spreads.
    pub spreads: Vec<HighScore>,
}

impl HighScores {
    /// The table as text lines, as `mille --scores` prints it.
    pub fn to_text(&self) -> String {
        let mut s = format!("Mille high scores\n\nBest totals (over {MIN_TOTAL}):\n");
        let section = |list: &[HighScore], s: &mut String| {
            if list.is_empty() {
                s.push_str("  (none yet)\n");
            }
            for (i, e) in list.iter().enumerate() {
                s.push_str(&format!(
                    "  {}. {:<31} {:>6}  ({})\n",
                    i + 1,
                    e.name,
                    e.points,
                    e.rules
                ));
            }
        };
        section(&self.totals, &mut s);
        s.push_str("\nBest spreads (winner's lead):\n");
        section(&self.spreads, &mut s);
        s
    }
}

/// The open high-score database.
pub struct ScoreDb {
    conn: Connection,
    path: PathBuf,
}

impl std::fmt::Debug for ScoreDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScoreDb").field("path", &self.path).finish()
    }
}

/// Schema migrations, applied in order; `PRAGMA user_version` counts them.
const MIGRATIONS: &[&str] = &["CREATE TABLE high_scores (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('total', 'spread')),
        name TEXT NOT NULL,
        points INTEGER NOT NULL,
        rules TEXT NOT NULL,
        at INTEGER NOT NULL
    );
    CREATE INDEX high_scores_kind ON high_scores (kind, points DESC);"];

impl ScoreDb {
    /// Opens (creating and migrating if needed) the table in `dir`.
    pub fn open(dir: &Path) -> Result<ScoreDb, StoreError> {
        let path = dir.join(SCORES_FILE);
        let conn = game_store::open_db(&path, MIGRATIONS)?;
        Ok(ScoreDb { conn, path })
    }

    fn err(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Db {
            path: self.path.clone(),
            source,
        }
    }

    /// Records a finished game: every side's name and final total. Totals of
    /// at least [`MIN_TOTAL`] compete for the totals table, the winner's lead over the
    /// runner-up for the spreads table. Returns which tables `names[me]`
    /// entered.
    pub fn record_game(
        &mut self,
        rules: &str,
        sides: &[(String, u32)],
        me: usize,
    ) -> Result<Vec<ScoreKind>, StoreError> {
        let at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let mut candidates: Vec<(ScoreKind, usize, u32)> = sides
            .iter()
            .enumerate()
            .filter(|(_, (_, t))| *t >= MIN_TOTAL)
            .map(|(i, (_, t))| (ScoreKind::Total, i, *t))
            .collect();
        let mut order: Vec<usize> = (0..sides.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(sides[i].1));
        if let [w, r, ..] = order[..] {
            let spread = sides[w].1 - sides[r].1;
            if spread > 0 {
                candidates.push((ScoreKind::Spread, w, spread));
            }
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|source| StoreError::Db {
                path: self.path.clone(),
                source,
            })?;
        let mut ids = Vec::new();
        for &(kind, side, points) in &candidates {
            tx.execute(
                "INSERT INTO high_scores (kind, name, points, rules, at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![kind.id(), sides[side].0, points, rules, at],
            )
            .map_err(|source| StoreError::Db {
                path: self.path.clone(),
                source,
            })?;
            ids.push((kind, side, tx.last_insert_rowid()));
        }
        for kind in [ScoreKind::Total, ScoreKind::Spread] {
            tx.execute(
                "DELETE FROM high_scores WHERE kind = ?1 AND id NOT IN
                 (SELECT id FROM high_scores WHERE kind = ?1 ORDER BY points DESC, id ASC LIMIT ?2)",
                params![kind.id(), KEEP as i64],
            )
            .map_err(|source| StoreError::Db {
                path: self.path.clone(),
                source,
            })?;
        }
        let mut entered = Vec::new();
        for (kind, side, id) in ids {
            let kept: i64 = tx
                .query_row(
                    "SELECT COUNT(*) FROM high_scores WHERE id = ?1",
                    params![id],
                    |r| r.get(0),
                )
                .map_err(|source| StoreError::Db {
                    path: self.path.clone(),
                    source,
                })?;
            if kept > 0 && side == me {
                entered.push(kind);
            }
        }
        tx.commit().map_err(|e| self.err(e))?;
        Ok(entered)
    }

    /// Both tables, best first.
    pub fn high_scores(&self) -> Result<HighScores, StoreError> {
        let list = |kind: ScoreKind| -> Result<Vec<HighScore>, rusqlite::Error> {
            let mut st = self.conn.prepare(
                "SELECT name, points, rules, at FROM high_scores WHERE kind = ?1
                 ORDER BY points DESC, id ASC LIMIT ?2",
            )?;
            let rows = st.query_map(params![kind.id(), KEEP as i64], |r| {
                Ok(HighScore {
                    name: r.get(0)?,
                    points: r.get(1)?,
                    rules: r.get(2)?,
                    at: r.get(3)?,
                })
            })?;
            rows.collect()
        };
        Ok(HighScores {
            totals: list(ScoreKind::Total).map_err(|e| self.err(e))?,
            spreads: list(ScoreKind::Spread).map_err(|e| self.err(e))?,
        })
    }

    /// Erases every high score.
    pub fn clear(&mut self) -> Result<(), StoreError> {
        self.conn
            .execute("DELETE FROM high_scores", [])
            .map(|_| ())
            .map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_three_best_of_each() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let mut db = ScoreDb::open(dir.path())?;
        let game = |a: u32, b: u32| vec![("Ana".to_string(), a), ("Computer".to_string(), b)];
        assert_eq!(
            db.record_game("bsd", &game(5200, 3000), 0)?,
            vec![ScoreKind::Total, ScoreKind::Spread]
        );
        db.record_game("bsd", &game(5100, 5050), 0)?;
        db.record_game("bsd", &game(4000, 5300), 0)?;
        db.record_game("bsd", &game(6000, 100), 0)?;
        let hs = db.high_scores()?;
        let totals: Vec<u32> = hs.totals.iter().map(|e| e.points).collect();
        assert_eq!(totals, vec![6000, 5300, 5200]);
        assert_eq!(hs.totals[1].name, "Computer");
        let spreads: Vec<u32> = hs.spreads.iter().map(|e| e.points).collect();
        assert_eq!(spreads, vec![5900, 2200, 1300]);
        assert!(hs.to_text().contains("Ana"));
        drop(db);
        let mut db = ScoreDb::open(dir.path())?;
        assert_eq!(db.high_scores()?.totals.len(), 3);
        db.clear()?;
        assert_eq!(db.high_scores()?, HighScores::default());
        Ok(())
    }
}
