//! The score file: every finished game's results in SQLite (through
//! `game-store`, in the user's data directory), the rankings of `cubes
//! rank` (cuberank) and the statistics of `cubes stat` (cubestat), and the
//! list of who is playing now.

use crate::StoreError;
use cubes_engine::Settings;
use game_table::{SeatInfo, SeatKind};
use rusqlite::{Connection, OpenFlags, params};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// File name of the score file in the data directory.
pub const SCORES_FILE: &str = "scores.db";

/// What the score file's methods return.
type Result<T> = std::result::Result<T, StoreError>;

/// Schema migrations, in order (see `game_store::open_db`).
pub const MIGRATIONS: &[&str] = &["
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    finished_at INTEGER NOT NULL,   -- unix seconds
    kind TEXT NOT NULL,             -- Standard / Blitz
    jokers INTEGER NOT NULL,
    players INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    turns INTEGER NOT NULL,
    quit INTEGER NOT NULL           -- 1: left before the end
);
CREATE TABLE results (
    game_id INTEGER NOT NULL REFERENCES games(id),
    name TEXT NOT NULL,
    computer INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    score INTEGER NOT NULL,
    won INTEGER NOT NULL,
    place INTEGER NOT NULL          -- 1 = winner
);
CREATE INDEX results_by_name ON results(name);
CREATE TABLE playing (
    pid INTEGER NOT NULL,
    name TEXT NOT NULL,
    started_at INTEGER NOT NULL
);
"];

/// One player's result in a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerResult {
    /// Player name.
    pub name: String,
    /// Whether a computer player.
    pub computer: bool,
    /// Seat.
    pub seat: usize,
    /// Final score.
    pub score: u32,
    /// Whether the player won.
    pub won: bool,
    /// Place, 1 = first.
    pub place: usize,
}

/// A game to record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// "Standard" or "Blitz".
    pub kind: String,
    /// Jokers dice.
    pub jokers: bool,
    /// The seed.
    pub seed: u64,
    /// Turns played in all.
    pub turns: u32,
    /// Whether somebody quit.
    pub quit: bool,
    /// Results of the players to record.
    pub players: Vec<PlayerResult>,
}

/// A line of the rankings.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranked {
    /// Player.
    pub name: String,
    /// Whether a computer player.
    pub computer: bool,
    /// Games played.
    pub games: u32,
    /// Games won.
    pub wins: u32,
    /// Average final score.
    pub average: f64,
    /// Best final score.
    pub best: u32,
}

impl GameResult {
    /// What goes into the score file for a game: every player of a
    /// finished game; only the people of a game left before its end (as a
    /// loss).
    pub fn of(state: &cubes_engine::State, seats: &[SeatInfo]) -> GameResult {
        let is_computer = |k: usize| {
            seats
                .get(k)
                .is_some_and(|s| matches!(s.kind, SeatKind::Computer { .. }))
        };
        let players = state.players();
        let mut order: Vec<usize> = (0..players.len()).collect();
        order.sort_by_key(|&k| (std::cmp::Reverse(players[k].score), k));
        let winner = state.winner();
        GameResult {
            kind: state.settings().name.clone(),
            jokers: state.jokers(),
            seed: state.seed(),
            turns: players.iter().map(|p| p.turns).sum(),
            quit: winner.is_none(),
            players: order
                .iter()
                .enumerate()
                .filter(|&(_, &k)| winner.is_some() || !is_computer(k))
                .map(|(place, &k)| PlayerResult {
                    name: seats
                        .get(k)
                        .map_or_else(|| format!("Seat {}", k + 1), |s| s.name.clone()),
                    computer: is_computer(k),
                    seat: k,
                    score: players[k].score,
                    won: winner == Some(k),
                    place: place + 1,
                })
                .collect(),
        }
    }
}

impl Ranked {
    /// Wins per game.
    pub fn rate(&self) -> f64 {
        f64::from(self.wins) / f64::from(self.games.max(1))
    }
}

/// One of a player's recorded games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recent {
    /// When it ended (unix seconds).
    pub at: i64,
    /// Standard or Blitz.
    pub kind: String,
    /// Jokers dice.
    pub jokers: bool,
    /// The player's score.
    pub score: u32,
    /// Whether the player won.
    pub won: bool,
    /// The player's place.
    pub place: u32,
    /// Players in the game.
    pub players: u32,
    /// Whether the game was left unfinished.
    pub quit: bool,
}

/// The score file.
pub struct ScoreFile {
    conn: Connection,
    path: PathBuf,
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

impl ScoreFile {
    /// Opens the score file in the user's data directory.
    pub fn open_default() -> Result<ScoreFile> {
        let dir = game_store::data_dir("cubes").map_err(StoreError::DataDir)?;
        ScoreFile::open(&dir.join(SCORES_FILE))
    }

    /// Opens (creating) a score file.
    pub fn open(path: &Path) -> Result<ScoreFile> {
        let conn = game_store::open_db(path, MIGRATIONS).map_err(|source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(ScoreFile {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Opens a score file only to read it: as [`ScoreFile::open`] where
    /// it can be written, else (a read-only file or directory) as it is,
    /// read-only, provided its schema is this program's. Anything else
    /// fails as [`ScoreFile::open`] does.
    pub fn open_to_read(path: &Path) -> Result<ScoreFile> {
        let writable = ScoreFile::open(path);
        let Err(cannot_write) = writable else {
            return writable;
        };
        // A file that cannot be upgraded or written may still be read as
        // it is; any other trouble is reported as the writable open's.
        let current = |conn: Connection| -> rusqlite::Result<Option<Connection>> {
            conn.busy_timeout(game_store::BUSY_TIMEOUT)?;
            let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
            Ok(usize::try_from(version)
                .is_ok_and(|v| v == MIGRATIONS.len())
                .then_some(conn))
        };
        let read_only = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .and_then(current)
            .or_else(|_| {
                // SQLite reads a database in write-ahead mode only with
                // its shared-memory file, which a read-only directory
                // cannot hold; nobody can write the file there, so it is
                // read as unchanging.
                let uri = immutable_uri(path).ok_or(rusqlite::Error::InvalidQuery)?;
                let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI;
                Connection::open_with_flags(uri, flags).and_then(current)
            });
        match read_only {
            Ok(Some(conn)) if path.is_file() => Ok(ScoreFile {
                conn,
                path: path.to_path_buf(),
            }),
            _ => Err(cannot_write),
        }
    }

    /// [`ScoreFile::open_to_read`] in the user's data directory.
    pub fn open_default_to_read() -> Result<ScoreFile> {
        let dir = game_store::data_dir("cubes").map_err(StoreError::DataDir)?;
        ScoreFile::open_to_read(&dir.join(SCORES_FILE))
    }

    /// Runs `f` on the database; its failure names this file.
    fn sql<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T> {
        f(&self.conn).map_err(|source| self.failed(source))
    }

    /// [`ScoreFile::sql`] for changes that need a transaction.
    fn sql_mut<T>(&mut self, f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>) -> Result<T> {
        let done = f(&mut self.conn);
        done.map_err(|source| self.failed(source))
    }

    fn failed(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Db {
            path: self.path.clone(),
            source,
        }
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records a game and its players' results in one transaction.
    pub fn record(&mut self, g: &GameResult) -> Result<()> {
        self.sql_mut(|conn| {
            let tx = conn.transaction()?;
            tx.execute(
                "INSERT INTO games (finished_at, kind, jokers, players, seed, turns, quit) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![now(), g.kind, g.jokers, g.players.len() as i64, g.seed as i64, g.turns, g.quit],
            )?;
            let id = tx.last_insert_rowid();
            for p in &g.players {
                tx.execute(
                    "INSERT INTO results (game_id, name, computer, seat, score, won, place) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    params![id, p.name, p.computer, p.seat as i64, p.score, p.won, p.place as i64],
                )?;
            }
            tx.commit()
        })
    }

    /// The kinds of game recorded ("Standard", "Blitz"), Standard first,
    /// then Blitz, then any other.
    pub fn kinds(&self) -> Result<Vec<String>> {
        let mut kinds = self.sql(|conn| {
            let mut st = conn.prepare("SELECT DISTINCT kind FROM games")?;
            st.query_map([], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<_>>>()
        })?;
        // Games are recorded under the engine's names for their kinds.
        let (standard, blitz) = (Settings::standard().name, Settings::blitz().name);
        let order = |k: &String| {
            if *k == standard {
                0
            } else if *k == blitz {
                1
            } else {
                2
            }
        };
        kinds.sort_by(|a, b| order(a).cmp(&order(b)).then(a.cmp(b)));
        Ok(kinds)
    }

    /// Every player of one kind of game, best first: ranked players (at
    /// least `min_games` games of that kind) by win rate, then average
    /// score; then the others. Kinds are never mixed: a Blitz game ends at
    /// a lower target, so its scores would drag a Standard average down.
    pub fn rankings(&self, kind: &str, min_games: u32) -> Result<(Vec<Ranked>, Vec<Ranked>)> {
        let mut all = self.sql(|conn| {
            let mut st = conn.prepare(
                // A person and a computer player of the same name (from a
                // score file written before people were refused computer
                // names) are two players, never one merged row.
                "SELECT r.name, r.computer, count(*), sum(r.won), avg(r.score), max(r.score)
                 FROM results r JOIN games g ON g.id = r.game_id
                 WHERE g.kind = ?1
                 GROUP BY r.name, r.computer",
            )?;
            let rows = st.query_map(params![kind], |r| {
                Ok(Ranked {
                    name: r.get(0)?,
                    computer: r.get(1)?,
                    games: r.get(2)?,
                    wins: r.get(3)?,
                    average: r.get(4)?,
                    best: r.get(5)?,
                })
            })?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
        })?;
        all.sort_by(|a, b| {
            b.rate()
                .total_cmp(&a.rate())
                .then(b.average.total_cmp(&a.average))
                .then(a.name.cmp(&b.name))
                .then(a.computer.cmp(&b.computer))
        });
        Ok(all.into_iter().partition(|r| r.games >= min_games))
    }

    /// A player's last games (the person or the computer player of that
    /// name), newest first.
    pub fn recent(&self, name: &str, computer: bool, limit: u32) -> Result<Vec<Recent>> {
        self.sql(|conn| {
            let mut st = conn.prepare(
                "SELECT g.finished_at, g.kind, g.jokers, r.score, r.won, r.place, g.players, g.quit
                 FROM results r JOIN games g ON g.id = r.game_id
                 WHERE r.name = ?1 AND r.computer = ?2 ORDER BY g.id DESC LIMIT ?3",
            )?;
            let rows = st.query_map(params![name, computer, limit], |r| {
                Ok(Recent {
                    at: r.get(0)?,
                    kind: r.get(1)?,
                    jokers: r.get(2)?,
                    score: r.get(3)?,
                    won: r.get(4)?,
                    place: r.get(5)?,
                    players: r.get(6)?,
                    quit: r.get(7)?,
                })
            })?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
        })
    }

    /// Everybody who played, as (name, computer), by name.
    pub fn everybody(&self) -> Result<Vec<(String, bool)>> {
        self.sql(|conn| {
            let mut st = conn
                .prepare("SELECT DISTINCT name, computer FROM results ORDER BY name, computer")?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
        })
    }

    /// Marks `name` as playing now (this process), and forgets the entries
    /// of games that ended without cleaning up (see [`ScoreFile::playing`]).
    pub fn start_playing(&self, name: &str) -> Result<()> {
        let gone = self.gone()?;
        self.sql(|conn| {
            conn.execute(
                "DELETE FROM playing WHERE started_at < ?1",
                params![now() - STALE_PLAYING],
            )?;
            for pid in gone {
                conn.execute("DELETE FROM playing WHERE pid = ?1", params![pid])?;
            }
            conn.execute(
                "INSERT INTO playing (pid, name, started_at) VALUES (?1, ?2, ?3)",
                params![i64::from(std::process::id()), name, now()],
            )
        })?;
        Ok(())
    }

    /// Removes this process's "playing now" entries.
    pub fn stop_playing(&self) -> Result<()> {
        self.sql(|conn| {
            conn.execute(
                "DELETE FROM playing WHERE pid = ?1",
                params![i64::from(std::process::id())],
            )
        })?;
        Ok(())
    }

    /// Who is playing now: (name, started unix time). Entries of games that
    /// ended without cleaning up (a closed terminal, a crash) are left out:
    /// where `/proc` lists processes, those whose process is gone; anywhere,
    /// those older than a day. Only reads, so that a score file that cannot
    /// be written still shows who plays.
    pub fn playing(&self) -> Result<Vec<(String, i64)>> {
        let gone = self.gone()?;
        let all = self.sql(|conn| {
            let mut st =
                conn.prepare("SELECT pid, name, started_at FROM playing ORDER BY started_at")?;
            let rows = st.query_map([], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get(2)?))
            })?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
        })?;
        let since = now() - STALE_PLAYING;
        Ok(all
            .into_iter()
            .filter(|(pid, _, at)| *at >= since && !gone.contains(pid))
            .map(|(_, name, at)| (name, at))
            .collect())
    }

    /// The processes of "playing now" entries that are gone, where `/proc`
    /// tells (else none).
    fn gone(&self) -> Result<Vec<i64>> {
        let proc_dir = Path::new("/proc");
        if !proc_dir.join("self").exists() {
            return Ok(Vec::new());
        }
        let pids: Vec<i64> = self.sql(|conn| {
            let mut st = conn.prepare("SELECT DISTINCT pid FROM playing")?;
            st.query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<_>>>()
        })?;
        Ok(pids
            .into_iter()
            .filter(|pid| !proc_dir.join(pid.to_string()).exists())
            .collect())
    }
}

/// The SQLite address of `path` opened as a file nobody changes (`None` for
/// a path that is not Unicode).
fn immutable_uri(path: &Path) -> Option<String> {
    let mut uri = String::from("file:");
    for b in path.to_str()?.bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push_str("?immutable=1");
    Some(uri)
}

/// Seconds after which a "playing now" entry is out of date whatever `/proc`
/// says.
const STALE_PLAYING: i64 = 86_400;

/// `YYYY-MM-DD HH:MM` (UTC) of a unix time.
pub fn format_time(t: i64) -> String {
    let (date, minute) = game_store::utc_date_and_minute(t);
    format!("{date} {minute}")
}

/// How to rank another kind of game.
fn rank_command(kind: &str) -> String {
    // `cubes rank` asks for the kinds by the engine's names, as here.
    if kind == Settings::blitz().name {
        "`cubes rank --blitz`".to_string()
    } else if kind == Settings::standard().name {
        "`cubes rank`".to_string()
    } else {
        format!("(no command for {kind} games)")
    }
}

/// The rankings of one kind of game as text (cuberank).
pub fn rank_text(file: &ScoreFile, kind: &str, min_games: u32) -> Result<String> {
    let kinds = file.kinds()?;
    let mut out = String::new();
    if kinds.is_empty() {
        out.push_str("No games recorded yet. Play one with `cubes`.\n");
        return Ok(out);
    }
    let (ranked, unranked) = file.rankings(kind, min_games)?;
    if ranked.is_empty() && unranked.is_empty() {
        out.push_str(&format!("No {kind} games recorded yet.\n"));
    } else {
        out.push_str(&format!("{kind} games\n"));
        out.push_str(&format!(
            "{:>4}  {:<31} {:>6} {:>5} {:>6} {:>8} {:>7}\n",
            "rank", "player", "games", "wins", "win%", "average", "best"
        ));
        for (k, r) in ranked.iter().enumerate() {
            out.push_str(&line(&format!("{}", k + 1), r));
        }
        if !unranked.is_empty() {
            out.push_str(&format!(
                "Not ranked yet (fewer than {min_games} game{}):\n",
                if min_games == 1 { "" } else { "s" }
            ));
            for r in &unranked {
                out.push_str(&line("-", r));
            }
        }
    }
    for other in kinds.iter().filter(|k| *k != kind) {
        out.push_str(&format!(
            "{other} games are ranked apart: {}.\n",
            rank_command(other)
        ));
    }
    Ok(out)
}

fn line(rank: &str, r: &Ranked) -> String {
    format!(
        "{:>4}  {:<31} {:>6} {:>5} {:>5.1}% {:>8.0} {:>7}\n",
        rank,
        display_name(r),
        r.games,
        r.wins,
        100.0 * r.rate(),
        r.average,
        r.best
    )
}

fn display_name(r: &Ranked) -> String {
    if r.computer {
        format!("{} (computer)", r.name)
    } else {
        r.name.clone()
    }
}

/// A player's statistics as text (cubestat), each kind of game apart, or
/// everybody's summary and who is playing now without a name.
pub fn stat_text(file: &ScoreFile, name: Option<&str>, min_games: u32) -> Result<String> {
    let mut out = String::new();
    let playing = file.playing()?;
    let kinds = file.kinds()?;
    match name {
        Some(name) => {
            // Each kind's rankings once; the name's rows and places are
            // looked up in them rather than asked of the file again.
            let mut per_kind = Vec::new();
            for kind in &kinds {
                per_kind.push((kind, file.rankings(kind, min_games)?));
            }
            // The person and the computer player of that name (an old
            // score file may hold both), the person first, each with a
            // line per kind.
            let mut who: Vec<bool> = per_kind
                .iter()
                .flat_map(|(_, (ranked, unranked))| ranked.iter().chain(unranked))
                .filter(|r| r.name == name)
                .map(|r| r.computer)
                .collect();
            who.sort();
            who.dedup();
            if who.is_empty() {
                out.push_str(&format!("{name} has no recorded games.\n"));
            }
            for computer in who {
                out.push_str(&format!(
                    "{name}{}\n",
                    if computer { " (computer player)" } else { "" }
                ));
                for (kind, (ranked, unranked)) in &per_kind {
                    let this = |x: &Ranked| x.name == name && x.computer == computer;
                    let place = ranked.iter().position(this);
                    let Some(r) = place
                        .map(|p| &ranked[p])
                        .or_else(|| unranked.iter().find(|x| this(x)))
                    else {
                        continue;
                    };
                    out.push_str(&format!(
                        "  {kind}: games {}, wins {} ({:.1}%), average score {:.0}, best game {}\n",
                        r.games,
                        r.wins,
                        100.0 * r.rate(),
                        r.average,
                        r.best
                    ));
                    match place {
                        Some(p) => out.push_str(&format!(
                            "    ranked {} of {} in {kind} games\n",
                            p + 1,
                            ranked.len()
                        )),
                        None => out.push_str(&format!(
                            "    not ranked yet in {kind} games: {} more game(s) to play\n",
                            min_games.saturating_sub(r.games)
                        )),
                    }
                }
                out.push_str("  last games:\n");
                for g in file.recent(name, computer, 10)? {
                    let (place, players) = (g.place, g.players);
                    out.push_str(&format!(
                        "    {}  {:<8}{} {:>6}  {}\n",
                        format_time(g.at),
                        g.kind,
                        if g.jokers { " Jokers" } else { "       " },
                        g.score,
                        if g.won {
                            "won".to_string()
                        } else if g.quit {
                            "left unfinished".to_string()
                        } else {
                            format!("place {place} of {players}")
                        },
                    ));
                }
            }
        }
        None => {
            let mut results = 0;
            let mut sections = String::new();
            for kind in &kinds {
                let (ranked, unranked) = file.rankings(kind, min_games)?;
                let mut all: Vec<&Ranked> = ranked.iter().chain(&unranked).collect();
                all.sort_by(|a, b| a.name.cmp(&b.name).then(a.computer.cmp(&b.computer)));
                sections.push_str(&format!("{kind} games:\n"));
                for r in all {
                    results += r.games;
                    sections.push_str(&format!(
                        "  {:<31} {:>4} game(s), {:>4} win(s), average {:>6.0}, best {:>6}\n",
                        display_name(r),
                        r.games,
                        r.wins,
                        r.average,
                        r.best
                    ));
                }
            }
            out.push_str(&format!(
                "{} player(s), {} result(s) recorded in {}\n",
                file.everybody()?.len(),
                results,
                file.path().display()
            ));
            out.push_str(&sections);
            out.push_str("`cubes stat NAME` shows one player's games.\n");
        }
    }
    if playing.is_empty() {
        out.push_str("Nobody is playing now.\n");
    } else {
        out.push_str("Playing now:\n");
        for (n, t) in playing {
            out.push_str(&format!("  {n} (since {})\n", format_time(t)));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(players: &[(&str, u32, bool)]) -> GameResult {
        let mut sorted: Vec<_> = players.to_vec();
        sorted.sort_by_key(|p| std::cmp::Reverse(p.1));
        GameResult {
            kind: "Standard".into(),
            jokers: false,
            seed: 1,
            turns: 40,
            quit: false,
            players: players
                .iter()
                .enumerate()
                .map(|(seat, &(name, score, won))| PlayerResult {
                    name: name.into(),
                    computer: name.starts_with("Bot"),
                    seat,
                    score,
                    won,
                    place: sorted.iter().position(|p| p.0 == name).unwrap_or(0) + 1,
                })
                .collect(),
        }
    }

    #[test]
    fn ranks_by_win_rate_with_a_minimum_of_games() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut f = ScoreFile::open(&dir.path().join("s.db")).expect("open");
        for _ in 0..3 {
            f.record(&game(&[("ann", 10_300, true), ("Bot Sam", 8_000, false)]))
                .expect("record");
        }
        f.record(&game(&[("ann", 9_000, false), ("Bot Sam", 10_500, true)]))
            .expect("record");
        f.record(&game(&[("bob", 10_250, true), ("Bot Sam", 9_000, false)]))
            .expect("record");
        let (ranked, unranked) = f.rankings("Standard", 3).expect("rank");
        let names: Vec<_> = ranked.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["ann", "Bot Sam"]);
        assert_eq!(
            (ranked[0].games, ranked[0].wins, ranked[0].best),
            (4, 3, 10_300)
        );
        assert_eq!(unranked.len(), 1);
        let text = rank_text(&f, "Standard", 3).expect("text");
        assert!(text.contains("Bot Sam (computer)"), "{text}");
        assert!(
            text.contains("Not ranked yet (fewer than 3 games)"),
            "{text}"
        );
        assert!(text.contains("75.0%"), "{text}");
        let all = stat_text(&f, None, 3).expect("stat");
        assert!(all.contains("Bot Sam (computer)"), "{all}");
        assert!(all.contains("5 game(s),    1 win(s)"), "{all}");
        let stat = stat_text(&f, Some("bob"), 3).expect("stat");
        assert!(
            stat.contains("not ranked yet in Standard games: 2 more game(s)"),
            "{stat}"
        );
        assert!(stat.contains("won"), "{stat}");
        let stat = stat_text(&f, Some("Bot Sam"), 3).expect("stat");
        assert!(
            stat.contains(
                "Standard: games 5, wins 1 (20.0%), average score 8700, best game 10500\n    ranked 2 of 2 in Standard games\n"
            ),
            "{stat}"
        );
        assert!(
            !stat.contains("Bot Sam\n"),
            "no person of that name: {stat}"
        );
    }

    #[test]
    fn a_person_and_a_computer_of_the_same_name_stay_apart() {
        // Score files written before people were refused computer names
        // may hold both; their games must not merge into one row.
        let dir = tempfile::tempdir().expect("tempdir");
        let mut f = ScoreFile::open(&dir.path().join("s.db")).expect("open");
        let mut g = game(&[("Bot Rex", 10_300, true), ("Bot Sam", 8_000, false)]);
        g.players[1].computer = false;
        f.record(&g).expect("record");
        f.record(&game(&[("Bot Sam", 10_500, true), ("ann", 9_000, false)]))
            .expect("record");
        let (all, none) = f.rankings("Standard", 1).expect("rank");
        assert!(none.is_empty());
        let sams: Vec<_> = all.iter().filter(|r| r.name == "Bot Sam").collect();
        assert_eq!(sams.len(), 2, "{all:?}");
        assert!(
            sams.iter()
                .any(|r| r.computer && (r.games, r.wins, r.best) == (1, 1, 10_500))
        );
        assert!(
            sams.iter()
                .any(|r| !r.computer && (r.games, r.wins, r.best) == (1, 0, 8_000))
        );
        let text = rank_text(&f, "Standard", 1).expect("text");
        assert_eq!(text.matches("Bot Sam (computer)").count(), 1, "{text}");
        let stat = stat_text(&f, Some("Bot Sam"), 1).expect("stat");
        assert_eq!(stat.matches("games 1,").count(), 2, "{stat}");
        assert!(stat.contains("Bot Sam (computer player)"), "{stat}");
    }

    #[test]
    fn standard_and_blitz_games_are_ranked_apart() {
        // A Blitz game ends at 7,500: mixed in, it dragged ann's Standard
        // average down and could even top her best.
        let dir = tempfile::tempdir().expect("tempdir");
        let mut f = ScoreFile::open(&dir.path().join("s.db")).expect("open");
        f.record(&game(&[("ann", 10_300, true), ("Bot Sam", 8_000, false)]))
            .expect("record");
        let mut blitz = game(&[("ann", 7_600, true), ("Bot Sam", 5_000, false)]);
        blitz.kind = "Blitz".into();
        f.record(&blitz).expect("record");
        let mut blitz = game(&[("ann", 4_000, false), ("Bot Sam", 7_700, true)]);
        blitz.kind = "Blitz".into();
        f.record(&blitz).expect("record");

        let (std, _) = f.rankings("Standard", 1).expect("rank");
        let ann = std.iter().find(|r| r.name == "ann").expect("ann");
        assert_eq!((ann.games, ann.wins, ann.best), (1, 1, 10_300));
        assert_eq!(ann.average, 10_300.0);
        let (blz, _) = f.rankings("Blitz", 1).expect("rank");
        let ann = blz.iter().find(|r| r.name == "ann").expect("ann");
        assert_eq!((ann.games, ann.wins, ann.best), (2, 1, 7_600));
        assert_eq!(ann.average, 5_800.0);

        let text = rank_text(&f, "Standard", 1).expect("text");
        assert!(text.starts_with("Standard games\n"), "{text}");
        assert!(text.contains("10300"), "{text}");
        assert!(!text.contains("5800"), "{text}");
        assert!(
            text.contains("Blitz games are ranked apart: `cubes rank --blitz`."),
            "{text}"
        );
        let text = rank_text(&f, "Blitz", 1).expect("text");
        assert!(text.contains("5800"), "{text}");
        assert!(
            text.contains("Standard games are ranked apart: `cubes rank`."),
            "{text}"
        );

        let stat = stat_text(&f, Some("ann"), 1).expect("stat");
        assert!(
            stat.contains(
                "Standard: games 1, wins 1 (100.0%), average score 10300, best game 10300"
            ),
            "{stat}"
        );
        assert!(
            stat.contains("Blitz: games 2, wins 1 (50.0%), average score 5800, best game 7600"),
            "{stat}"
        );
        let all = stat_text(&f, None, 1).expect("stat");
        assert!(all.contains("2 player(s), 6 result(s)"), "{all}");
        assert!(all.contains("Standard games:\n"), "{all}");
        assert!(all.contains("Blitz games:\n"), "{all}");
        // Nothing of one kind: said plainly.
        let dir = tempfile::tempdir().expect("tempdir");
        let mut f = ScoreFile::open(&dir.path().join("s.db")).expect("open");
        f.record(&blitz).expect("record");
        let text = rank_text(&f, "Standard", 1).expect("text");
        assert!(
            text.starts_with("No Standard games recorded yet."),
            "{text}"
        );
    }

    #[test]
    fn playing_now_comes_and_goes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = ScoreFile::open(&dir.path().join("s.db")).expect("open");
        f.start_playing("ann").expect("start");
        assert_eq!(f.playing().expect("list").len(), 1);
        let all = stat_text(&f, None, 5).expect("stat");
        assert!(all.contains("ann (since"), "{all}");
        assert!(all.contains("0 player(s), 0 result(s)"), "{all}");
        f.stop_playing().expect("stop");
        assert!(f.playing().expect("list").is_empty());
    }

    #[test]
    fn dates() {
        assert_eq!(format_time(0), "1970-01-01 00:00");
        assert_eq!(format_time(951_782_400), "2000-02-29 00:00");
        assert_eq!(format_time(1_700_000_000), "2023-11-14 22:13");
    }
}
