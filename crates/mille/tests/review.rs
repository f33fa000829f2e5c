//! End-to-end: `mille review` on a short game (one hand of two classic
//! players, a small search budget): the table of decisions, the hand's
//! summary and the worst decisions with their sentences, a server's game
//! document naming its players, the board at one decision, bad files and
//! seats in one sentence with exit status 2, and the progress line in a
//! pseudo-terminal.

use mille_engine::{GameConfig, GameRecord, RulesetId};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use std::io::Read;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_mille");

/// Iterations a decision: enough for a table, small enough for a test.
const BUDGET: &str = "400";

fn one_hand(seed: u64) -> GameRecord {
    let config = GameConfig {
        rules: RulesetId::Bsd,
        players: 2,
        stacking: false,
    };
    mille_review::classic_game(config, seed, Some(1))
}

/// `mille ARGS`: exit code, stdout, stderr.
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

#[test]
fn a_hand_is_reviewed_decision_by_decision() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = one_hand(3);
    let doc = serde_json::json!({
        "id": 7, "game": "mille",
        "players": [
            {"seat": 0, "name": "computer: classic", "computer": true},
            {"seat": 1, "name": "ann", "computer": false},
        ],
        "record": record,
    });
    let file = write(dir.path(), "game-7.json", &doc.to_string());
    let (code, out, err) = run(&["review", &file, "--iterations", BUDGET]);
    assert_eq!(code, 0, "{err}");
    // The first person is reviewed unless told otherwise.
    assert!(out.starts_with("Review of ann (seat 2): "), "{out}");
    let config = mille_review::ReviewConfig {
        iterations: 400,
        ..mille_review::ReviewConfig::default()
    };
    let review = mille_review::review_game(&record, 1, &config).expect("review");
    // Each decision a row: its number, hand and mark; the same marks as
    // the library's review with the same budget and seed.
    for (k, d) in review.decisions.iter().enumerate() {
        let row = out
            .lines()
            .find(|l| {
                let mut w = l.split_whitespace();
                w.next() == Some(&(k + 1).to_string()) && w.next() == Some("1")
            })
            .unwrap_or_else(|| panic!("row {}:\n{out}", k + 1));
        assert!(row.ends_with(d.mark.label()), "{row}");
    }
    assert!(
        out.contains(&format!(
            "Hand 1: {} decisions, {:.0} points lost",
            review.hands[0].decisions, review.hands[0].points_lost
        )),
        "{out}"
    );
    assert!(out.contains("The game: "), "{out}");
    for w in &review.worst {
        assert!(out.contains(&w.sentence), "{}\n{out}", w.sentence);
    }
    // Progress on standard error, one line per step when not a terminal.
    let total = review.decisions.len();
    assert!(
        err.contains(&format!("Reviewing decision {total} of {total}...")),
        "{err}"
    );

    // The board the seat saw at decision 2, its hand included, and the
    // value of every move there.
    let (code, out, err) = run(&["review", &file, "--iterations", BUDGET, "--at", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(&format!("Decision 2 of {total}: ann, hand 1.")),
        "{out}"
    );
    assert!(out.contains("Your hand:"), "{out}");
    assert!(out.contains("Every move, best first"), "{out}");
    assert!(out.contains("preferred") && out.contains("made"), "{out}");
}

#[test]
fn what_cannot_be_reviewed_is_said_in_one_sentence() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = serde_json::to_string(&one_hand(4)).expect("json");
    let good = write(dir.path(), "g.json", &record);
    let missing = dir.path().join("none.json").to_string_lossy().into_owned();
    let text = write(dir.path(), "t.txt", "hello");
    for (args, says) in [
        (vec!["review", missing.as_str()], "there is no file"),
        (vec!["review", text.as_str()], "t.txt"),
        (vec!["review", good.as_str(), "--seat", "3"], "--seat 3:"),
        (
            vec![
                "review",
                good.as_str(),
                "--iterations",
                BUDGET,
                "--at",
                "999",
            ],
            "--at 999:",
        ),
    ] {
        let (code, out, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(out.is_empty(), "{out}");
        let last = err.lines().last().unwrap_or("");
        assert!(last.starts_with("mille review: "), "{err}");
        assert!(last.contains(says), "{says:?} in {err}");
    }
}

#[test]
fn in_a_terminal_the_progress_line_moves_in_place_and_the_table_follows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = serde_json::to_string(&one_hand(5)).expect("json");
    let file = write(dir.path(), "g.json", &record);
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 120,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("a pty");
    let mut cmd = CommandBuilder::new(BIN);
    cmd.args(["review", &file, "--iterations", BUDGET, "--seat", "1"]);
    cmd.env("GAMES_DATA_DIR", dir.path());
    cmd.env("TERM", "xterm-256color");
    let mut child = pair.slave.spawn_command(cmd).expect("spawn mille");
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().expect("reader");
    let parser = Arc::new(Mutex::new(vt100::Parser::new(
        std::num::NonZeroU16::new(40).expect("rows"),
        std::num::NonZeroU16::new(120).expect("cols"),
        10_000,
    )));
    let raw = Arc::new(Mutex::new(Vec::new()));
    let (p, r) = (Arc::clone(&parser), Arc::clone(&raw));
    std::thread::spawn(move || {
        let _master = pair.master;
        let mut buf = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            if let Ok(mut parser) = p.lock() {
                parser.process(&buf[..n]);
            }
            if let Ok(mut raw) = r.lock() {
                raw.extend_from_slice(&buf[..n]);
            }
        }
    });
    let end = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break status;
        }
        assert!(Instant::now() < end, "mille review did not end");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.exit_code(), 0);
    // Let the reader take the last bytes.
    let end = Instant::now() + Duration::from_secs(10);
    while !String::from_utf8_lossy(&raw.lock().expect("raw")).contains("`--at K`") {
        assert!(Instant::now() < end, "the table's last line");
        std::thread::sleep(Duration::from_millis(20));
    }
    let raw = String::from_utf8_lossy(&raw.lock().expect("raw")).into_owned();
    // The progress was rewritten in place (carriage returns, no new
    // line each time)...
    assert!(raw.contains("Reviewing decision 0 of "), "{raw}");
    assert!(raw.contains("...\r"), "{raw}");
    // ... and is gone from the screen, which shows the review.
    let screen = parser.lock().expect("screen").screen().contents();
    assert!(!screen.contains("Reviewing decision"), "{screen}");
    assert!(screen.contains("The game: "), "{screen}");
    assert!(screen.contains("`--at K` shows the board"), "{screen}");
}
