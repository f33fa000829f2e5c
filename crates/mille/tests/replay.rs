//! End-to-end: `mille replay` plays recorded games back. `--plain` prints
//! a save file and a table server's game document (built here from a
//! game record, as `GET /api/games/ID` gives it) step by step; bad files
//! are refused in one sentence with exit status 2; in a pseudo-terminal
//! the arrow keys and h step forward, back and to the next hand.

use mille_engine::{ActionList, GameConfig, GameRecord, RulesetId, State, ToAct};
use mille_store::{SaveFile, SaveSettings};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_mille");

/// A whole two-player bsd game: every seat plays its first legal move,
/// the hands are dealt until one side wins.
fn whole_game(seed: u64) -> GameRecord {
    let config = GameConfig {
        rules: RulesetId::Bsd,
        players: 2,
        stacking: false,
    };
    let mut record = GameRecord::new(config, seed);
    let mut state = State::new(config, seed).expect("config");
    let mut list = ActionList::default();
    while state.to_act() != ToAct::GameOver {
        state.legal_actions(&mut list);
        let a = *list.first().expect("a legal action");
        state.apply(a).expect("legal");
        record.actions.push(a);
        assert!(record.actions.len() < 20_000, "the game ends");
    }
    record
}

/// `mille ARGS` on pipes: (success, exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let data = tempfile::tempdir().expect("tempdir");
    let out = Command::new(BIN)
        .args(args)
        .env("GAMES_DATA_DIR", data.path())
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run mille");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.to_string_lossy().into_owned()
}

/// A table server's game document for `record`: ann at seat 0, a
/// computer at seat 1, move 5 made by a stand-in.
fn server_document(record: &GameRecord) -> String {
    serde_json::json!({
        "id": 42, "game": "mille", "ruleset": "bsd, 2 players", "rated": true,
        "finished_at": 1_795_000_000, "outcome": "finished", "private": false,
        "players": [
            {"seat": 0, "name": "ann", "computer": false, "score": 5000, "won": true,
             "abandoned": false, "stand_in_moves": 1},
            {"seat": 1, "name": "computer: classic", "computer": true, "score": 3000,
             "won": false, "abandoned": false, "stand_in_moves": 0}
        ],
        "stand_in": [5],
        "record": record,
    })
    .to_string()
}

#[test]
fn a_save_file_is_printed_move_by_move() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = whole_game(5);
    let moves = record.actions.len();
    let save = SaveFile::new(
        record,
        SaveSettings {
            level: "classic".into(),
            player: "bob".into(),
            sorted: false,
        },
    );
    let file = write(dir.path(), "bob.mille", &save.to_text());
    let (code, out, err) = run(&["replay", "--plain", &file]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("Replay of bob.mille: bsd rules, 2 players (bob, Computer);"),
        "{}",
        &out[..300.min(out.len())]
    );
    assert!(out.contains("Start, hand 1: Hand 1 is dealt;"), "{out}");
    // A spectator sees every move but the coups fourrés let pass: no
    // more steps than moves, and most of them.
    let steps = out.matches("\nMove ").count();
    assert!(
        steps <= moves && steps > moves * 9 / 10,
        "{steps} of {moves}"
    );
    assert!(
        out.contains(&format!("Move 1 of {steps}, hand 1: ")),
        "{out}"
    );
    assert!(
        out.contains("bob drew a card."),
        "a spectator sees draws, not cards"
    );
    assert!(out.contains("Hand 2 is dealt;"), "{out}");
    assert!(
        out.contains("bob: mileage "),
        "the board is shown at each step"
    );
    assert!(!out.contains("Your hand"), "a spectator has no hand");
    assert!(
        out.trim_end()
            .lines()
            .last()
            .unwrap_or("")
            .starts_with("Game over: ")
    );
}

#[test]
fn a_servers_game_document_is_printed_with_its_names_and_stand_in() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = whole_game(9);
    let file = write(dir.path(), "game-42.json", &server_document(&record));
    let (code, out, err) = run(&["replay", "--plain", "--all", &file]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("Replay of game-42.json: bsd rules, 2 players (ann, computer: classic);"),
        "{}",
        &out[..300.min(out.len())]
    );
    assert!(
        out.contains("(a computer's move, for its absent player)"),
        "{out}"
    );
    // --all: both hands at every step.
    assert!(out.contains("\nann's hand: "), "{out}");
    assert!(out.contains("\ncomputer: classic's hand: "), "{out}");
    // From seat 1's view: its own draws name the card.
    let (code, seat, err) = run(&["replay", "--plain", "--seat", "2", &file]);
    assert_eq!(code, 0, "{err}");
    assert!(seat.contains("You drew "), "{seat}");
    assert!(seat.contains("ann drew a card."), "{seat}");
    // A bare record reads too.
    let bare = write(
        dir.path(),
        "record.json",
        &serde_json::to_string(&record).expect("json"),
    );
    let (code, out, err) = run(&["replay", "--plain", &bare]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("(Seat 1, Seat 2)"),
        "{}",
        &out[..200.min(out.len())]
    );
}

#[test]
fn an_unfinished_game_plays_back_to_where_it_stopped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut record = whole_game(5);
    record.actions.truncate(40);
    let file = write(
        dir.path(),
        "unfinished.json",
        &serde_json::to_string(&record).expect("json"),
    );
    let (code, out, err) = run(&["replay", "--plain", &file]);
    assert_eq!(code, 0, "{err}");
    let last = out.trim_end().lines().last().unwrap_or("").to_string();
    assert!(
        last.starts_with("The record ends before the game does: Seat 1 "),
        "{last}"
    );
}

#[test]
fn bad_files_and_seats_are_refused_in_one_sentence() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = whole_game(3);
    let mut broken = record.clone();
    // A second draw in a row is illegal where it stands.
    broken.actions.insert(1, mille_engine::Action::Draw);
    let cases = [
        (write(dir.path(), "empty", ""), "is empty"),
        (write(dir.path(), "text", "hello"), "not a JSON document"),
        (
            write(dir.path(), "cubes.json", r#"{"game":"cubes","record":{}}"#),
            "is a game of cubes",
        ),
        (
            write(
                dir.path(),
                "broken.json",
                &serde_json::to_string(&broken).expect("json"),
            ),
            "does not replay",
        ),
        (
            dir.path().join("missing").to_string_lossy().into_owned(),
            "there is no file",
        ),
    ];
    for (file, says) in cases {
        let (code, out, err) = run(&["replay", "--plain", &file]);
        assert_eq!(code, 2, "{file}: {out}{err}");
        assert!(
            err.starts_with("mille replay: ") && err.contains(says),
            "{err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let good = write(
        dir.path(),
        "good.json",
        &serde_json::to_string(&record).expect("json"),
    );
    let (code, _, err) = run(&["replay", "--plain", "--seat", "3", &good]);
    assert_eq!(code, 2);
    assert!(err.contains("has seats 1 to 2"), "{err}");
    // Without a terminal and without --plain: say how to get text.
    let (code, _, err) = run(&["replay", &good]);
    assert_eq!(code, 2);
    assert!(err.contains("--plain"), "{err}");
}

/// The screen of a program in a pseudo-terminal.
struct Screen {
    parser: Arc<Mutex<vt100::Parser>>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Screen {
    fn spawn(args: &[&str], data: &Path) -> Screen {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 24,
                cols: 80,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pty");
        let mut cmd = CommandBuilder::new(BIN);
        cmd.args(args);
        cmd.env("GAMES_DATA_DIR", data);
        cmd.env("TERM", "xterm-256color");
        let child = pair.slave.spawn_command(cmd).expect("spawn mille");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let writer = pair.master.take_writer().expect("writer");
        let parser = Arc::new(Mutex::new(vt100::Parser::new(
            std::num::NonZeroU16::new(24).expect("rows"),
            std::num::NonZeroU16::new(80).expect("cols"),
            0,
        )));
        let p = Arc::clone(&parser);
        std::thread::spawn(move || {
            // The master side stays open in this thread until the program
            // ends: the terminal is not closed under it.
            let _master = pair.master;
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut parser) = p.lock() {
                    parser.process(&buf[..n]);
                }
            }
        });
        Screen {
            parser,
            writer,
            child,
        }
    }

    fn text(&self) -> String {
        self.parser
            .lock()
            .map(|p| p.screen().contents())
            .unwrap_or_default()
    }

    fn keys(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).expect("type");
        self.writer.flush().expect("flush");
    }

    fn wait_for(&self, needle: &str) -> String {
        let end = Instant::now() + Duration::from_secs(30);
        loop {
            let s = self.text();
            if s.contains(needle) {
                return s;
            }
            assert!(
                Instant::now() < end,
                "timed out waiting for {needle:?}; the screen shows:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn wait_exit(&mut self) -> u32 {
        let end = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.exit_code();
            }
            assert!(Instant::now() < end, "mille replay did not end");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
    }
}

#[test]
fn keys_step_forward_back_and_to_the_next_hand_full_screen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = whole_game(9);
    let file = write(dir.path(), "game-42.json", &server_document(&record));
    let mut s = Screen::spawn(&["replay", &file], dir.path());
    // The first deal, on the game's own board: both sides, the score
    // window, the replay's keys.
    let first = s.wait_for("Start, hand 1: Hand 1 is dealt; ann starts.");
    assert!(first.contains("ann"), "{first}");
    assert!(first.contains("computer: classic"), "{first}");
    assert!(first.contains("Mileage:"), "{first}");
    assert!(first.contains("Score: hand 1"), "{first}");
    assert!(first.contains(" game-42.json | move 0/"), "{first}");
    // The score window, not the commands of a game being played.
    assert!(
        first.contains("Trip Completed") && !first.contains("lobby"),
        "{first}"
    );
    s.keys("\x1b[C");
    s.wait_for("Move 1 of ");
    s.wait_for("ann drew a card.");
    s.keys(" ");
    s.wait_for("Move 2 of ");
    s.keys("\x1b[D");
    s.wait_for("Move 1 of ");
    s.keys("p");
    s.wait_for("Start, hand 1");
    // h: the first step of the next hand.
    s.keys("h");
    let second = s.wait_for("Hand 2 is dealt;");
    assert!(second.contains("Score: hand 2"), "{second}");
    // H goes back to the start of the first hand from there.
    s.keys("H");
    s.wait_for("Start, hand 1");
    // End: the last move and how the game ended.
    s.keys("\x1b[F");
    s.wait_for("Game over: ");
    s.keys("q");
    assert_eq!(s.wait_exit(), 0);
}

#[test]
fn every_hand_is_shown_with_all() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = whole_game(9);
    let file = write(dir.path(), "game-42.json", &server_document(&record));
    let mut s = Screen::spawn(&["replay", "--all", &file], dir.path());
    s.wait_for("Start, hand 1");
    let shown = s.wait_for("computer: classic: ");
    assert!(shown.contains("\nann: "), "{shown}");
    s.keys("q");
    assert_eq!(s.wait_exit(), 0);
}
