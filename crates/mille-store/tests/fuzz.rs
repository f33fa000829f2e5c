//! Fuzzing what `mille-store` reads: save files, the options file and the
//! high-score database, from random bytes and from real examples with
//! their bytes mutated (flip, delete, duplicate, insert, splice, cut,
//! numbers swapped for huge or negative ones) or their JSON values
//! swapped. Whatever is on disk, loading gives a valid game (options,
//! table) or a clear error, never a panic, and never changes the file.
//!
//! The default case counts keep the suite fast; a long run:
//! `PROPTEST_CASES=1000000 cargo test --release -p mille-store --test fuzz`.

#[path = "../../mille-protocol/tests/support/mutate.rs"]
mod mutate;

use mille_engine::{ActionList, GameConfig, GameRecord, State};
use mille_store::scores::SCORES_FILE;
use mille_store::{MouseMethod, Options, SaveError, SaveFile, SaveSettings, ScoreDb, StoreError};
use mutate::{apply, apply_json, cases, edits, json_edits};
use proptest::prelude::*;
use rusqlite::types::Value as Sql;
use std::path::Path;

/// The text of a real save: a game of configuration `which` played
/// `choices.len()` moves in (each the `choices[k]`-th legal one, deals
/// included, so a save may be several hands long).
fn real_save(which: usize, seed: u64, choices: &[u8], player: &str) -> String {
    let every: Vec<GameConfig> = GameConfig::every().collect();
    let config = every[which % every.len()];
    let mut record = GameRecord::new(config, seed);
    if let Ok(mut state) = State::new(config, seed) {
        let mut list = ActionList::default();
        for &c in choices {
            state.legal_actions(&mut list);
            if list.is_empty() {
                break;
            }
            let a = list[usize::from(c) % list.len()];
            if state.apply(a).is_err() {
                break;
            }
            record.actions.push(a);
        }
    }
    let settings = SaveSettings {
        level: "classic".into(),
        player: player.into(),
        sorted: seed.is_multiple_of(2),
    };
    SaveFile::new(record, settings).to_text()
}

fn real_save_strategy() -> impl Strategy<Value = String> + Clone {
    (
        0..GameConfig::every().count(),
        any::<u64>(),
        proptest::collection::vec(any::<u8>(), 0..400),
        ".{0,12}",
    )
        .prop_map(|(which, seed, choices, player)| real_save(which, seed, &choices, &player))
}

/// Bytes for a file: a real example with its bytes mutated or its JSON
/// values swapped, random bytes, or the example as it is.
fn file_bytes(real: impl Strategy<Value = String> + Clone) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => (real.clone(), real.clone(), edits(6))
            .prop_map(|(base, other, e)| apply(base.as_bytes(), other.as_bytes(), &e)),
        4 => (real.clone(), json_edits(3)).prop_map(|(base, e)| apply_json(&base, &e).into_bytes()),
        1 => proptest::collection::vec(any::<u8>(), 0..300),
        1 => real.prop_map(String::into_bytes),
    ]
}

/// Writes `bytes` to `name` in a new directory, runs `load` on the path
/// and checks that the file is exactly as it was.
fn load_untouched<T>(
    name: &str,
    bytes: &[u8],
    load: impl FnOnce(&Path) -> T,
) -> Result<T, TestCaseError> {
    let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let out = load(dir.path());
    let after = std::fs::read(&path).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert!(after == bytes, "loading changed the file");
    let names = std::fs::read_dir(dir.path())
        .map_err(|e| TestCaseError::fail(e.to_string()))?
        .count();
    prop_assert_eq!(names, 1, "loading left a file behind");
    Ok(out)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(400)))]

    /// A save file, however damaged: a game that replays or one sentence,
    /// and the file as it was.
    #[test]
    fn loading_a_damaged_save_gives_a_game_or_a_reason(bytes in file_bytes(real_save_strategy())) {
        let loaded = load_untouched("g.mille", &bytes, |dir| SaveFile::load(&dir.join("g.mille")))?;
        match loaded {
            Ok((save, state)) => {
                // What loaded is a game: it replays to the same state and
                // writes back to a file that loads the same.
                let again = save.record.replay().map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(format!("{again:?}"), format!("{state:?}"));
                let text = save.encode().map_err(|e| TestCaseError::fail(e.to_string()))?;
                let (back, _) = SaveFile::from_bytes(Path::new("g.mille"), text.as_bytes())
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(back, save);
            }
            Err(e) => {
                let text = e.to_string();
                prop_assert!(!text.is_empty() && !text.contains('\n'), "{:?}", text);
                prop_assert!(!matches!(e, SaveError::Missing(_) | SaveError::Write(_)), "{}", text);
            }
        }
    }
}

/// The text of a real options file.
fn real_options(name: Option<String>, auto_sort: bool, drag: bool, bonus: bool) -> String {
    let o = Options {
        name,
        auto_sort,
        mouse: if drag {
            MouseMethod::DragAndDrop
        } else {
            MouseMethod::ClickClick
        },
        bonus_window: bonus,
    };
    serde_json::to_string_pretty(&o).unwrap_or_default()
}

fn real_options_strategy() -> impl Strategy<Value = String> + Clone {
    (
        proptest::option::of(".{0,16}"),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(n, a, d, b)| real_options(n, a, d, b))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(300)))]

    /// An options file, however damaged: options or a reason naming the
    /// file, and the file as it was.
    #[test]
    fn loading_damaged_options_gives_options_or_a_reason(bytes in file_bytes(real_options_strategy())) {
        let loaded = load_untouched("options.json", &bytes, Options::load)?;
        if let Err(e) = loaded {
            prop_assert!(matches!(e, StoreError::BadOptions { .. }), "{}", e);
            prop_assert!(e.to_string().contains("options.json"), "{}", e);
        }
    }

    /// Any options, whatever the name, are written and read back.
    #[test]
    fn any_options_round_trip(text in real_options_strategy()) {
        let o: Options = serde_json::from_str(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        o.save(dir.path()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(Options::load(dir.path()).map_err(|e| TestCaseError::fail(e.to_string()))?, o);
    }
}

/// Any SQLite value.
fn sql_value() -> impl Strategy<Value = Sql> {
    prop_oneof![
        Just(Sql::Null),
        any::<i64>().prop_map(Sql::Integer),
        prop_oneof![
            Just(-1i64),
            Just(0),
            Just(5000),
            Just(i64::from(u32::MAX)),
            Just(i64::from(u32::MAX) + 1)
        ]
        .prop_map(Sql::Integer),
        any::<f64>().prop_map(Sql::Real),
        ".{0,10}".prop_map(Sql::Text),
        proptest::collection::vec(any::<u8>(), 0..10).prop_map(Sql::Blob),
    ]
}

/// A row of the table, its kind mostly a real one so that it is read.
fn row() -> impl Strategy<Value = [Sql; 5]> {
    (
        prop_oneof![
            3 => prop_oneof![Just("total"), Just("spread")].prop_map(|k| Sql::Text(k.into())),
            1 => sql_value(),
        ],
        sql_value(),
        sql_value(),
        sql_value(),
        sql_value(),
    )
        .prop_map(|(a, b, c, d, e)| [a, b, c, d, e])
}

/// Opens the table in `dir` and uses it every way the game does; any
/// failure must be an error naming the database.
fn use_table(dir: &Path, sides: &[(String, u32)], me: usize) -> Result<(), TestCaseError> {
    let check = |e: StoreError| -> Result<(), TestCaseError> {
        let text = e.to_string();
        prop_assert!(text.contains(SCORES_FILE), "{}", text);
        Ok(())
    };
    let mut db = match ScoreDb::open(dir) {
        Ok(db) => db,
        Err(e) => return check(e),
    };
    match db.high_scores() {
        Ok(hs) => {
            prop_assert!(hs.totals.len() <= 3 && hs.spreads.len() <= 3);
            let _ = hs.to_text();
        }
        Err(e) => check(e)?,
    }
    if let Err(e) = db.record_game("bsd", sides, me) {
        check(e)?;
    }
    if let Err(e) = db.high_scores() {
        check(e)?;
    }
    Ok(())
}

fn sides() -> impl Strategy<Value = Vec<(String, u32)>> {
    proptest::collection::vec((".{0,8}", any::<u32>()), 0..4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(150)))]

    /// Rows of any type and value (the table's own checks set aside, as
    /// a damaged or hand-edited file may have them): the table or an error.
    #[test]
    fn a_table_with_garbage_rows_gives_scores_or_an_error(
        rows in proptest::collection::vec(row(), 0..8),
        sides in sides(),
        me in 0usize..4,
        loose in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        drop(ScoreDb::open(dir.path()).map_err(|e| TestCaseError::fail(e.to_string()))?);
        {
            let conn = rusqlite::Connection::open(dir.path().join(SCORES_FILE))
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let sql = |e: rusqlite::Error| TestCaseError::fail(e.to_string());
            if loose {
                // The same table without types or constraints, as another
                // program could have left it.
                conn.execute_batch(
                    "DROP TABLE high_scores;
                     CREATE TABLE high_scores (id INTEGER PRIMARY KEY, kind, name, points, rules, at);",
                )
                .map_err(sql)?;
            } else {
                conn.pragma_update(None, "ignore_check_constraints", true).map_err(sql)?;
            }
            for r in &rows {
                // NOT NULL still refuses some rows of the typed table: skip them.
                let _ = conn.execute(
                    "INSERT INTO high_scores (kind, name, points, rules, at) VALUES (?1, ?2, ?3, ?4, ?5)",
                    rusqlite::params_from_iter(r.iter()),
                );
            }
        }
        use_table(dir.path(), &sides, me)?;
    }
}

/// The bytes of a real database with a few games in it.
fn real_db() -> Vec<u8> {
    let Ok(dir) = tempfile::tempdir() else {
        return Vec::new();
    };
    if let Ok(mut db) = ScoreDb::open(dir.path()) {
        for (a, b) in [(5200, 3000), (6100, 200), (4000, 5300)] {
            let _ = db.record_game(
                "bsd",
                &[("Ana".to_string(), a), ("Computer".to_string(), b)],
                0,
            );
        }
    }
    // Closing the last connection folds the write-ahead log into the file.
    std::fs::read(dir.path().join(SCORES_FILE)).unwrap_or_default()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(100)))]

    /// A database file with garbage in it: the table or an error.
    #[test]
    fn a_garbage_database_file_gives_scores_or_an_error(
        edits in edits(8),
        random in proptest::collection::vec(any::<u8>(), 0..2000),
        use_random in any::<bool>(),
        sides in sides(),
    ) {
        let bytes = if use_random {
            random
        } else {
            let real = real_db();
            prop_assert!(real.len() >= 4096, "a real database was written");
            apply(&real, &random, &edits)
        };
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        std::fs::write(dir.path().join(SCORES_FILE), &bytes)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        use_table(dir.path(), &sides, 0)?;
    }
}
