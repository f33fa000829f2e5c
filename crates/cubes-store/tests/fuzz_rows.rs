//! Score files as other programs, old versions or damage may leave them:
//! random and mutated values in the rows (text in number columns, negative
//! or huge numbers, NULLs, unknown columns), files of random bytes, files
//! with flipped bytes, schemas older or newer than this program's. The
//! readers behind `cubes rank` and `cubes stat` must give a correct result
//! or an error that names the score file, never panic.

use cubes_store::{GameResult, MIGRATIONS, PlayerResult, ScoreFile, rank_text, stat_text};
use proptest::prelude::*;
use rusqlite::Connection;
use rusqlite::types::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Every reader, with names and kinds that the rows may hold. Each gives a
/// result or an error naming the file; a panic fails the property.
fn read_everything(f: &ScoreFile) -> Result<(), TestCaseError> {
    let path = f.path().display().to_string();
    let clear = |e: cubes_store::StoreError| -> Result<(), TestCaseError> {
        let text = e.to_string();
        prop_assert!(
            text.contains(&path),
            "an error that does not name the file: {text}"
        );
        Ok(())
    };
    for kind in ["Standard", "Blitz", ""] {
        for min in [0, 1, 5] {
            if let Err(e) = f.rankings(kind, min) {
                clear(e)?;
            }
            if let Err(e) = rank_text(f, kind, min) {
                clear(e)?;
            }
        }
    }
    for name in [None, Some("ann"), Some("Bot"), Some("")] {
        if let Err(e) = stat_text(f, name, 1) {
            clear(e)?;
        }
        if let Some(name) = name {
            for computer in [false, true] {
                if let Err(e) = f.recent(name, computer, 10) {
                    clear(e)?;
                }
            }
        }
    }
    for r in [
        f.kinds().map(drop),
        f.everybody().map(drop),
        f.playing().map(drop),
    ] {
        if let Err(e) = r {
            clear(e)?;
        }
    }
    Ok(())
}

/// Any value SQLite can hold, with the awkward ones often.
fn any_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<i64>().prop_map(Value::Integer),
        prop_oneof![
            Just(i64::MIN),
            Just(i64::MAX),
            Just(-1),
            Just(0),
            Just(i64::from(u32::MAX) + 1)
        ]
        .prop_map(Value::Integer),
        any::<f64>().prop_map(Value::Real),
        ".{0,12}".prop_map(Value::Text),
        "[0-9 .e+-]{0,8}".prop_map(Value::Text),
        proptest::collection::vec(any::<u8>(), 0..8).prop_map(Value::Blob),
    ]
}

/// A value of a column as the game writes it, or any value.
fn column(plausible: impl Strategy<Value = Value> + 'static) -> BoxedStrategy<Value> {
    prop_oneof![3 => plausible, 1 => any_value()].boxed()
}

fn small(max: i64) -> impl Strategy<Value = Value> {
    (0..=max).prop_map(Value::Integer)
}

fn kind() -> impl Strategy<Value = Value> {
    prop_oneof![Just("Standard"), Just("Blitz")].prop_map(|k| Value::Text(k.into()))
}

fn name() -> impl Strategy<Value = Value> {
    prop_oneof![Just("ann"), Just("Bot"), Just("bob")].prop_map(|n| Value::Text(n.into()))
}

/// A games row: finished_at, kind, jokers, players, seed, turns, quit.
fn games_row() -> impl Strategy<Value = Vec<Value>> {
    vec![
        column(small(2_000_000_000)),
        column(kind()),
        column(small(1)),
        column(small(6)),
        column(any::<i64>().prop_map(Value::Integer)),
        column(small(200)),
        column(small(1)),
    ]
}

/// A results row: game_id, name, computer, seat, score, won, place.
fn results_row() -> impl Strategy<Value = Vec<Value>> {
    vec![
        column(small(4)),
        column(name()),
        column(small(1)),
        column(small(5)),
        column(small(20_000)),
        column(small(1)),
        column(small(6)),
    ]
}

/// A playing row: pid, name, started_at.
fn playing_row() -> impl Strategy<Value = Vec<Value>> {
    vec![
        column(small(100_000)),
        column(name()),
        column(small(2_000_000_000)),
    ]
}

#[derive(Debug, Clone)]
struct Rows {
    games: Vec<Vec<Value>>,
    results: Vec<Vec<Value>>,
    playing: Vec<Vec<Value>>,
}

fn rows() -> impl Strategy<Value = Rows> {
    (
        proptest::collection::vec(games_row(), 0..4),
        proptest::collection::vec(results_row(), 0..8),
        proptest::collection::vec(playing_row(), 0..3),
    )
        .prop_map(|(games, results, playing)| Rows {
            games,
            results,
            playing,
        })
}

fn insert(conn: &Connection, rows: &Rows) {
    // Results of games that are not there: as a damaged file may hold.
    conn.pragma_update(None, "foreign_keys", "OFF")
        .expect("no foreign keys");
    let put = |table: &str, cols: &str, values: &[Vec<Value>]| {
        let marks = vec!["?"; cols.split(',').count()].join(", ");
        let sql = format!("INSERT INTO {table} ({cols}) VALUES ({marks})");
        for v in values {
            conn.execute(&sql, rusqlite::params_from_iter(v.iter()))
                .expect("insert");
        }
    };
    put(
        "games",
        "finished_at, kind, jokers, players, seed, turns, quit",
        &rows.games,
    );
    put(
        "results",
        "game_id, name, computer, seat, score, won, place",
        &rows.results,
    );
    put("playing", "pid, name, started_at", &rows.playing);
}

/// Replaces NULLs, which this program's schema refuses.
fn no_nulls(rows: &Rows) -> Rows {
    let fix = |t: &Vec<Vec<Value>>| -> Vec<Vec<Value>> {
        t.iter()
            .map(|r| {
                r.iter()
                    .map(|v| match v {
                        Value::Null => Value::Integer(0),
                        v => v.clone(),
                    })
                    .collect()
            })
            .collect()
    };
    Rows {
        games: fix(&rows.games),
        results: fix(&rows.results),
        playing: fix(&rows.playing),
    }
}

/// A score file as an older or foreign program might have written it: no
/// column types, no constraints, columns this program does not know.
const LOOSE_SCHEMA: &str = "
CREATE TABLE games (id INTEGER PRIMARY KEY, finished_at, kind, jokers, players, seed, turns, quit, colour);
CREATE TABLE results (game_id, name, computer, seat, score, won, place, note);
CREATE TABLE playing (pid, name, started_at, host);
";

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn mutated_rows_in_the_schema_are_read_or_reported(rows in rows()) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.db");
        let f = ScoreFile::open(&path).expect("open");
        let conn = Connection::open(&path).expect("raw");
        insert(&conn, &no_nulls(&rows));
        drop(conn);
        read_everything(&f)?;
        // And as a reader opens it.
        read_everything(&ScoreFile::open_to_read(&path).expect("reopen"))?;
    }

    #[test]
    fn rows_with_nulls_and_unknown_columns_are_read_or_reported(rows in rows()) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.db");
        let conn = Connection::open(&path).expect("raw");
        conn.execute_batch(LOOSE_SCHEMA).expect("schema");
        conn.pragma_update(None, "user_version", MIGRATIONS.len() as i64).expect("version");
        insert(&conn, &rows);
        drop(conn);
        let f = ScoreFile::open(&path).expect("open");
        read_everything(&f)?;
    }

    #[test]
    fn random_bytes_are_no_score_file(
        bytes in proptest::collection::vec(any::<u8>(), 0..4096),
        header in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.db");
        let mut bytes = bytes;
        if header {
            // Past SQLite's first check.
            let magic = b"SQLite format 3\0";
            bytes.splice(0..magic.len().min(bytes.len()), magic.iter().copied());
        }
        std::fs::write(&path, &bytes).expect("write");
        for f in [ScoreFile::open(&path), ScoreFile::open_to_read(&path)] {
            match f {
                Ok(f) => read_everything(&f)?,
                Err(e) => {
                    let text = e.to_string();
                    prop_assert!(text.contains("s.db"), "{text}");
                }
            }
        }
    }

    #[test]
    fn a_damaged_score_file_is_read_or_reported(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..12),
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.db");
        let mut f = ScoreFile::open(&path).expect("open");
        for k in 0..6u32 {
            f.record(&game(k)).expect("record");
        }
        drop(f);
        let mut bytes = std::fs::read(&path).expect("read");
        for (at, b) in flips {
            let at = at.index(bytes.len());
            bytes[at] ^= b;
        }
        std::fs::write(&path, &bytes).expect("write");
        for f in [ScoreFile::open(&path), ScoreFile::open_to_read(&path)] {
            match f {
                Ok(f) => read_everything(&f)?,
                Err(e) => {
                    let text = e.to_string();
                    prop_assert!(text.contains("s.db"), "{text}");
                }
            }
        }
    }

    #[test]
    fn other_schema_versions_are_refused_clearly(version in prop_oneof![
        Just(i64::from(i32::MIN)), -5i64..0, Just(0), 2i64..1000, Just(i64::from(i32::MAX)),
    ]) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.db");
        let conn = Connection::open(&path).expect("raw");
        conn.execute_batch(LOOSE_SCHEMA).expect("schema");
        // SQLite keeps the version in 32 bits. Version 0 with the tables
        // there: a file written before versions were kept.
        conn.pragma_update(None, "user_version", version).expect("version");
        drop(conn);
        for f in [ScoreFile::open(&path), ScoreFile::open_to_read(&path)] {
            let text = match f {
                Ok(_) => return Err(TestCaseError::fail(format!("version {version} was accepted"))),
                Err(e) => error_chain(&e),
            };
            prop_assert!(text.contains("s.db"), "{text}");
            prop_assert!(text.contains("schema"), "{text}");
        }
    }

    #[test]
    fn valid_rows_are_ranked_exactly(
        games in proptest::collection::vec(
            (any::<bool>(), proptest::collection::vec((0usize..3, any::<bool>(), 0u32..=u32::MAX), 1..4)),
            0..6,
        ),
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut f = ScoreFile::open(&dir.path().join("s.db")).expect("open");
        let mut model: BTreeMap<Who, Figures> = BTreeMap::new();
        for (blitz, players) in &games {
            let kind = if *blitz { "Blitz" } else { "Standard" };
            let mut g = game(0);
            g.kind = kind.into();
            g.players = players
                .iter()
                .enumerate()
                .map(|(seat, &(who, won, score))| PlayerResult {
                    name: ["ann", "bob", "Bot"][who].into(),
                    computer: who == 2,
                    seat,
                    score,
                    won,
                    place: seat + 1,
                })
                .collect();
            for p in &g.players {
                let e = model
                    .entry((kind.into(), p.name.clone(), p.computer))
                    .or_insert((0, 0, 0.0, 0));
                e.0 += 1;
                e.1 += u32::from(p.won);
                e.2 += f64::from(p.score);
                e.3 = e.3.max(p.score);
            }
            f.record(&g).expect("record");
        }
        for kind in ["Standard", "Blitz"] {
            let (ranked, unranked) = f.rankings(kind, 2).expect("rankings");
            let mut got: Vec<_> = ranked
                .iter()
                .chain(&unranked)
                .map(|r| ((r.name.clone(), r.computer), (r.games, r.wins, r.average, r.best)))
                .collect();
            got.sort_by(|a, b| a.0.cmp(&b.0));
            let want: Vec<_> = model
                .iter()
                .filter(|(k, _)| k.0 == kind)
                .map(|(k, v)| ((k.1.clone(), k.2), (v.0, v.1, v.2 / f64::from(v.0), v.3)))
                .collect();
            prop_assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(&want) {
                prop_assert_eq!(&g.0, &w.0);
                prop_assert_eq!((g.1.0, g.1.1, g.1.3), (w.1.0, w.1.1, w.1.3));
                prop_assert!((g.1.2 - w.1.2).abs() <= 1e-6 * w.1.2.max(1.0));
            }
            prop_assert!(ranked.iter().all(|r| r.games >= 2));
            prop_assert!(unranked.iter().all(|r| r.games < 2));
            prop_assert!(ranked.windows(2).all(|w| w[0].rate() >= w[1].rate()));
        }
        read_everything(&f)?;
    }
}

/// A player of a kind of game: (kind, name, computer).
type Who = (String, String, bool);

/// A player's figures: (games, wins, sum of scores, best score).
type Figures = (u32, u32, f64, u32);

/// An error and its causes, as the command line prints them.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// A finished two-player game.
fn game(k: u32) -> GameResult {
    GameResult {
        kind: if k.is_multiple_of(2) {
            "Standard"
        } else {
            "Blitz"
        }
        .into(),
        jokers: k.is_multiple_of(3),
        seed: u64::from(k),
        turns: 30 + k,
        quit: false,
        players: vec![
            PlayerResult {
                name: "ann".into(),
                computer: false,
                seat: 0,
                score: 10_000 + k,
                won: true,
                place: 1,
            },
            PlayerResult {
                name: "Bot".into(),
                computer: true,
                seat: 1,
                score: 5_000,
                won: false,
                place: 2,
            },
        ],
    }
}

#[test]
fn a_missing_file_in_a_missing_directory_is_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path: &Path = &dir.path().join("nope").join("s.db");
    for f in [ScoreFile::open(path), ScoreFile::open_to_read(path)] {
        let Err(e) = f else {
            panic!("opened a file in a missing directory");
        };
        assert!(e.to_string().contains("s.db"), "{e}");
    }
}
