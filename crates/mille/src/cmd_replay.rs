//! `mille replay FILE`: a recorded game played back move by move, full
//! screen ([`mille_tui::replay::run`]) or as text (`--plain`). FILE is a
//! mille save file, a bare game record (`mille_engine::GameRecord` as
//! JSON), or a table server's game document (`GET /api/games/ID`: an
//! object whose `record` is the game record, with its players' names).
//! Whatever is wrong with the file is said in one sentence, exit status 2.

use clap::Args;
use game_table::{SeatInfo, Viewer};
use mille_engine::GameRecord;
use mille_store::SaveFile;
use mille_tui::replay::{KEYS, Replay};
use mille_tui::signals::Stop;
use serde_json::Value;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// The most moves a record may hold: many games' worth (a game of
/// Mille Bornes takes a few hundred), and every step is kept in memory.
pub const MAX_ACTIONS: usize = 100_000;

/// Options of `mille replay`.
#[derive(Args, Debug)]
#[command(after_help = format!("Keys: {KEYS}."))]
pub struct ReplayArgs {
    /// The game: a save file (the S command), a game record, or a table
    /// server's game (the JSON of /api/games/ID).
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// Show the game as this seat saw it (1 is the first seat), its hand
    /// and its draws included, instead of as a spectator.
    #[arg(long, value_name = "N")]
    seat: Option<usize>,

    /// Show every seat's hand at every step.
    #[arg(long)]
    all: bool,

    /// Print the whole game as text, step after step, instead of showing
    /// it full screen.
    #[arg(long)]
    plain: bool,
}

/// A game read from a file: its record, its seats' names and which of
/// its moves a computer made for an absent person.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The record.
    pub record: GameRecord,
    /// The seats, as the table named them.
    pub seats: Vec<SeatInfo>,
    /// Positions in the record of the moves a stand-in made.
    pub stand_in: Vec<usize>,
}

/// Runs `mille replay`.
pub fn run(args: ReplayArgs) -> anyhow::Result<()> {
    let loaded = match load(&args.file) {
        Ok(l) => l,
        Err(why) => fail(&why),
    };
    let seats = usize::from(loaded.record.config.players);
    let viewer = match args.seat {
        None => Viewer::Spectator,
        Some(n) if (1..=seats).contains(&n) => Viewer::Seat(n - 1),
        Some(n) => fail(&format!(
            "--seat {n}: the game in {} has seats 1 to {seats}",
            args.file.display()
        )),
    };
    let title = args.file.file_name().map_or_else(
        || args.file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let replay = match Replay::new(
        &loaded.record,
        &loaded.seats,
        viewer,
        args.all,
        &loaded.stand_in,
        title,
    ) {
        Ok(r) => r,
        Err(e) => fail(&format!(
            "the game in {} does not replay: {e}",
            args.file.display()
        )),
    };
    if args.plain {
        // A closed pipe (`mille replay --plain F | head`) ends it quietly.
        let _ = std::io::stdout().write_all(replay.plain_text().as_bytes());
        return Ok(());
    }
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        fail("mille replay needs a terminal to play the game back; --plain prints it as text");
    }
    let stop = Stop::install()?;
    match mille_tui::replay::run(&replay, &stop) {
        Ok(None) => Ok(()),
        Ok(Some(sig)) => std::process::exit(128 + sig.clamp(0, 127)),
        Err(e) => {
            // The terminal may be gone (a hangup): said without a panic
            // if standard error is gone with it.
            let _ = writeln!(std::io::stderr(), "mille replay: the terminal failed: {e}");
            std::process::exit(1)
        }
    }
}

/// Says what is wrong and exits 2.
fn fail(why: &str) -> ! {
    let _ = writeln!(std::io::stderr(), "mille replay: {why}");
    std::process::exit(2)
}

/// Reads the game in the file at `path`; the sentence that says what is
/// wrong with it otherwise.
pub fn load(path: &Path) -> Result<Loaded, String> {
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!("there is no file {}", path.display()),
        _ => format!("cannot read {}: {e}", path.display()),
    })?;
    read(path, &bytes)
}

/// Reads the game in `bytes`, read from `path` (named in the sentences).
pub fn read(path: &Path, bytes: &[u8]) -> Result<Loaded, String> {
    let name = path.display();
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(format!("{name} is empty: there is no game in it"));
    }
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| format!("{name} is not a mille game: it is not a JSON document ({e})"))?;
    let Some(object) = value.as_object() else {
        return Err(format!(
            "{name} is not a mille game: a save file, a game record or a server's game is a JSON object"
        ));
    };
    let loaded = if object.get("format").and_then(Value::as_str) == Some(mille_store::SAVE_FORMAT) {
        // The save file's own reader says what is wrong with one.
        let (save, _) = SaveFile::from_bytes(path, bytes).map_err(|e| e.to_string())?;
        let players = usize::from(save.record.config.players);
        let mut seats = vec![SeatInfo::human(save.settings.player.clone())];
        for s in 1..players {
            let name = if players == 2 {
                "Computer".to_string()
            } else {
                format!("Computer {s}")
            };
            seats.push(SeatInfo::computer(name, save.settings.level.clone()));
        }
        Loaded {
            record: save.record,
            seats,
            stand_in: Vec::new(),
        }
    } else if let Some(record) = object.get("record") {
        if let Some(game) = object.get("game").and_then(Value::as_str)
            && game != "mille"
        {
            return Err(format!(
                "{name} is a game of {game}, not of Mille Bornes: mille replay plays Mille Bornes games"
            ));
        }
        let record: GameRecord = serde_json::from_value(record.clone()).map_err(|e| {
            format!("{name} is damaged: its \"record\" is not a mille game record ({e})")
        })?;
        Loaded {
            seats: server_seats(object.get("players")),
            stand_in: object
                .get("stand_in")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_u64)
                        .filter_map(|i| usize::try_from(i).ok())
                        .collect()
                })
                .unwrap_or_default(),
            record,
        }
    } else if object.contains_key("config") && object.contains_key("actions") {
        let record: GameRecord = serde_json::from_value(value.clone())
            .map_err(|e| format!("{name} is damaged: it is not a mille game record ({e})"))?;
        Loaded {
            record,
            seats: Vec::new(),
            stand_in: Vec::new(),
        }
    } else {
        return Err(format!(
            "{name} is not a mille game: neither a save file, a game record nor a server's game"
        ));
    };
    if loaded.record.actions.len() > MAX_ACTIONS {
        return Err(format!(
            "{name} holds {} moves, more than mille replay plays back ({MAX_ACTIONS})",
            loaded.record.actions.len()
        ));
    }
    Ok(loaded)
}

/// The seats of a server's game document: its `players` by `seat`
/// (names as the server gave them; a seat missing is named by the
/// replay).
fn server_seats(players: Option<&Value>) -> Vec<SeatInfo> {
    let mut seats: Vec<SeatInfo> = Vec::new();
    let Some(players) = players.and_then(Value::as_array) else {
        return seats;
    };
    for p in players {
        let (Some(seat), Some(name)) = (
            p.get("seat").and_then(Value::as_u64),
            p.get("name").and_then(Value::as_str),
        ) else {
            continue;
        };
        // Six seats at most: a larger number names no seat of a game.
        let Ok(seat) = usize::try_from(seat) else {
            continue;
        };
        if seat >= 6 {
            continue;
        }
        // Names are shown on the board: nothing that moves the cursor.
        let name = table_client::printable(name).into_owned();
        let computer = p.get("computer").and_then(Value::as_bool).unwrap_or(false);
        while seats.len() <= seat {
            seats.push(SeatInfo::human(format!("Seat {}", seats.len() + 1)));
        }
        seats[seat] = if computer {
            let level = name
                .strip_prefix("computer: ")
                .unwrap_or("computer")
                .to_string();
            SeatInfo::computer(name, level)
        } else {
            SeatInfo::human(name)
        };
    }
    seats
}

#[cfg(test)]
mod tests {
    use super::*;
    use mille_engine::{ActionList, GameConfig, RulesetId, State};
    use proptest::prelude::*;

    /// A short game record: the first legal move `n` times.
    fn record(n: usize) -> GameRecord {
        let config = GameConfig {
            rules: RulesetId::Bsd,
            players: 2,
            stacking: false,
        };
        let mut record = GameRecord::new(config, 3);
        let mut state = State::new(config, 3).expect("config");
        let mut list = ActionList::default();
        for _ in 0..n {
            state.legal_actions(&mut list);
            let Some(&a) = list.first() else { break };
            state.apply(a).expect("legal");
            record.actions.push(a);
        }
        record
    }

    fn server_document(record: &GameRecord) -> String {
        serde_json::json!({
            "id": 12, "game": "mille", "ruleset": "bsd, 2 players", "rated": true,
            "finished_at": 1795000000, "outcome": "finished", "private": false,
            "players": [
                {"seat": 1, "name": "computer: classic", "computer": true, "score": 0,
                 "won": false, "abandoned": false, "stand_in_moves": 0},
                {"seat": 0, "name": "ann", "computer": false, "score": 0, "won": true,
                 "abandoned": false, "stand_in_moves": 1}
            ],
            "stand_in": [2],
            "record": record,
        })
        .to_string()
    }

    #[test]
    fn the_three_forms_are_read() {
        let r = record(30);
        let p = Path::new("g.json");
        let bare = read(p, serde_json::to_string(&r).expect("json").as_bytes()).expect("bare");
        assert_eq!(bare.record, r);
        let doc = read(p, server_document(&r).as_bytes()).expect("server");
        assert_eq!(doc.record, r);
        assert_eq!(doc.seats[0].name, "ann");
        assert_eq!(doc.seats[1].name, "computer: classic");
        assert_eq!(doc.stand_in, [2]);
        let save = SaveFile::new(
            r.clone(),
            mille_store::SaveSettings {
                level: "classic".into(),
                player: "bob".into(),
                sorted: false,
            },
        );
        let saved = read(p, save.to_text().as_bytes()).expect("save");
        assert_eq!(saved.record, r);
        assert_eq!(saved.seats[0].name, "bob");
        assert_eq!(saved.seats[1].name, "Computer");
    }

    #[test]
    fn what_is_not_a_game_is_said_in_one_sentence() {
        let p = Path::new("g.json");
        let cases: [(&[u8], &str); 7] = [
            (b"", "g.json is empty"),
            (b"{\"config\":", "not a JSON document"),
            (b"[1,2]", "is a JSON object"),
            (b"{\"a\":1}", "neither a save file"),
            (b"{\"game\":\"cubes\",\"record\":{}}", "is a game of cubes"),
            (
                b"{\"record\":{\"seed\":1}}",
                "its \"record\" is not a mille game record",
            ),
            (
                b"{\"format\":\"mille-save\",\"version\":99}",
                "newer version",
            ),
        ];
        for (bytes, says) in cases {
            let e = read(p, bytes).expect_err("refused");
            assert!(e.contains(says), "{e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    /// Reads `bytes` and, when they are a game, replays it: neither may
    /// panic, whatever the bytes.
    fn read_and_replay(bytes: &[u8]) {
        if let Ok(l) = read(Path::new("f"), bytes) {
            let _ = Replay::new(
                &l.record,
                &l.seats,
                Viewer::Spectator,
                true,
                &l.stand_in,
                "f",
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn random_bytes_are_refused_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            read_and_replay(&bytes);
        }

        #[test]
        fn mutated_documents_are_refused_or_replayed_without_panic(
            which in 0usize..3,
            edits in proptest::collection::vec((any::<proptest::sample::Index>(), any::<u8>(), 0u8..3), 1..6),
        ) {
            let r = record(40);
            let text = match which {
                0 => serde_json::to_string(&r).expect("json"),
                1 => server_document(&r),
                _ => SaveFile::new(r, mille_store::SaveSettings {
                    level: "classic".into(), player: "bob".into(), sorted: false,
                }).to_text(),
            };
            let mut bytes = text.into_bytes();
            for (at, byte, how) in edits {
                if bytes.is_empty() { break; }
                let i = at.index(bytes.len());
                match how {
                    0 => bytes[i] = byte,
                    1 => { bytes.remove(i); }
                    _ => bytes.insert(i, byte),
                }
            }
            read_and_replay(&bytes);
        }

        #[test]
        fn any_seat_list_names_seats_without_panic(players in proptest::collection::vec(
            (any::<u64>(), ".{0,12}", any::<bool>()), 0..8)) {
            let players: Vec<Value> = players
                .into_iter()
                .map(|(seat, name, computer)| serde_json::json!({"seat": seat % 9, "name": name, "computer": computer}))
                .collect();
            let seats = server_seats(Some(&Value::Array(players)));
            prop_assert!(seats.len() <= 6);
        }
    }
}
