//! End-to-end tests of `cubes review`: the real binary on a game record
//! and on a server's game document (the table of decisions, a seat, the
//! board at one decision), files that are no game (one sentence, exit
//! status 2), and the review offered at the end of a game played full
//! screen in a pseudo-terminal.

mod common;

use common::{BIN, Pty};
use cubes_ai::optimal::decide;
use cubes_ai::review::{Mark, review_game};
use cubes_engine::{Action, GameRecord, Settings, State, ToAct};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// A whole game: seat 0 plays `bold`, the others the optimal player.
fn game(players: usize, seed: u64) -> GameRecord {
    let settings = Settings::standard();
    let mut record = GameRecord::new(settings.clone(), players, seed);
    let mut state = State::new(settings, players, seed).expect("setup");
    let bold = cubes_ai::Personality::bold();
    while let ToAct::Seat(s) = state.to_act() {
        let view = state.view(s);
        let a = if s == 0 {
            bold.act(&view)
        } else {
            decide(&view)
        };
        state.apply(a).expect("legal");
        record.actions.push(a);
    }
    record
}

/// Runs `cubes ARGS`: exit code, standard output, standard error.
fn cubes(data: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .env("GAMES_DATA_DIR", data)
        .output()
        .expect("run cubes");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.display().to_string()
}

#[test]
fn a_record_is_reviewed_decision_by_decision() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = game(2, 7);
    let file = write(
        dir.path(),
        "game.json",
        &serde_json::to_string(&record).expect("json"),
    );
    let (code, out, err) = cubes(dir.path(), &["review", &file]);
    assert_eq!(code, 0, "{err}");
    let review = review_game(&record, 0).expect("review");
    assert!(
        out.starts_with("Review of Seat 1 (seat 1): a Standard game of 2 players"),
        "{out}"
    );
    // One row per decision, numbered, with its mark.
    for d in &review.decisions {
        let row = out
            .lines()
            .find(|l| l.split_whitespace().next() == Some(&(d.index + 1).to_string()))
            .unwrap_or_else(|| panic!("row {}:\n{out}", d.index + 1));
        assert!(row.ends_with(d.mark.word()), "{row}");
    }
    let m = review.marks;
    assert!(
        out.contains(&format!(
            "{} decisions ({} forced moves not counted): {} best, {} good",
            review.decisions.len(),
            review.forced,
            m.best,
            m.good
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("Accuracy: {:.0}%", review.accuracy)),
        "{out}"
    );
    // A bold player makes some mistakes against the optimal one.
    assert!(review.decisions.iter().any(|d| d.mark != Mark::Best));

    // The board at the first decision that was not the best.
    let d = review
        .decisions
        .iter()
        .find(|d| d.mark != Mark::Best)
        .expect("a loss");
    let k = (d.index + 1).to_string();
    let (code, out, err) = cubes(dir.path(), &["review", &file, "--at", &k]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(&format!(
            "Decision {k} of {}: Seat 1's turn {}",
            review.decisions.len(),
            d.turn
        )),
        "{out}"
    );
    assert!(
        out.contains("Every move, best first (chance of winning)"),
        "{out}"
    );
    assert!(out.contains("optimal") && out.contains("made"), "{out}");
    assert!(out.contains(&format!("({})", d.mark.word())), "{out}");
}

#[test]
fn a_servers_game_names_its_players_and_reviews_the_first_person() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = game(3, 4);
    let doc = serde_json::json!({
        "id": 12, "game": "cubes", "ruleset": "Standard",
        "players": [
            {"seat": 0, "name": "Bold Bella", "computer": true, "score": 0, "won": false},
            {"seat": 1, "name": "ann", "computer": false, "score": 0, "won": false},
            {"seat": 2, "name": "Optimal Olga", "computer": true, "score": 0, "won": true},
        ],
        "record": record,
    });
    let file = write(dir.path(), "12.json", &doc.to_string());
    let (code, out, err) = cubes(dir.path(), &["review", &file]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Review of ann (seat 2)"), "{out}");
    // The optimal player's own decisions are all best.
    assert!(out.contains("Accuracy: 100%"), "{out}");
    let (code, out, err) = cubes(dir.path(), &["review", &file, "--seat", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Review of Bold Bella (seat 1)"), "{out}");
    // Three players: points before the end game, the game's chance after.
    assert!(out.contains(" pts "), "{out}");
    assert!(out.contains("Expected points given away in all"), "{out}");
}

#[test]
fn what_cannot_be_reviewed_is_said_in_one_sentence() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = serde_json::to_string(&game(2, 3)).expect("json");
    let mut broken = game(2, 3);
    broken.actions.insert(3, Action::Roll);
    let broken = serde_json::to_string(&broken).expect("json");
    let empty = serde_json::to_string(&GameRecord::new(Settings::standard(), 2, 1)).expect("json");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                write(dir.path(), "e.json", &empty),
                "--at".into(),
                "1".into(),
            ],
            "Seat 1 had no choice to make in this game",
        ),
        (
            vec![dir.path().join("missing.json").display().to_string()],
            "cannot read",
        ),
        (vec![write(dir.path(), "text", "hello")], "it is not JSON"),
        (
            vec![write(
                dir.path(),
                "mille.json",
                r#"{"game":"mille","record":{}}"#,
            )],
            "a game of mille",
        ),
        (
            vec![write(dir.path(), "obj.json", r#"{"players": 2}"#)],
            "not a game record of cubes",
        ),
        (
            vec![write(dir.path(), "broken.json", &broken)],
            "does not replay",
        ),
        (
            vec![
                write(dir.path(), "g.json", &good),
                "--seat".into(),
                "3".into(),
            ],
            "--seat 3: the game in",
        ),
        (
            vec![
                write(dir.path(), "g.json", &good),
                "--at".into(),
                "999".into(),
            ],
            "--at 999:",
        ),
    ];
    for (args, says) in cases {
        let mut all = vec!["review".to_string()];
        all.extend(args);
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        let (code, out, err) = cubes(dir.path(), &refs);
        assert_eq!(code, 2, "{all:?}: {out}{err}");
        assert!(out.is_empty(), "{out}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("cubes review: "), "{err}");
        assert!(err.contains(says), "{says:?} in {err}");
        assert!(err.trim_end().ends_with('.'), "{err}");
    }
}

#[test]
fn the_end_of_a_game_on_the_full_screen_offers_its_review() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut p = Pty::spawn_sized(
        data.path(),
        &[
            "--blitz",
            "--jokers",
            "never",
            "--seed",
            "5",
            "-c",
            "reckless",
            "--delay",
            "0",
            "--no-record",
            "ann",
        ],
        30,
        100,
    );
    p.wait_for("Press r to roll");
    // Roll, pick every scoring die, hold; a refused hold is followed by
    // rolling on. The reckless computer ends the game soon enough.
    let start = Instant::now();
    while !p.text().contains("Game over") {
        assert!(
            start.elapsed() < Duration::from_secs(180),
            "no end:\n{}",
            p.text()
        );
        for k in ["r", "a", "h"] {
            p.send(k);
            std::thread::sleep(Duration::from_millis(40));
        }
    }
    std::thread::sleep(Duration::from_millis(300));
    p.keys("q");
    let screen = p.wait_for("Review this game? (y/n)");
    assert!(screen.contains("won (seed 5)"), "{screen}");
    p.send("y\r");
    let screen = p.wait_for("Accuracy: ");
    assert!(screen.contains("Marks: an inaccuracy loses 1%"), "{screen}");
    assert!(p.wait_exit());
}
