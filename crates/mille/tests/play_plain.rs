//! The plain text mode, driven line by line: whole hands, a whole game,
//! and the high-score table it leaves behind.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

struct Plain {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    transcript: String,
}

const PROMPTS: [&str; 10] = [
    "really discard it? (y/n)",
    "ESC cancels)",
    "P to pick a card.",
    "U to use or D to discard a card.",
    "or P to let it pass.",
    "Another hand? (y/n)",
    "Another game? (y/n)",
    "Extend the trip to 1000 miles? (y/n)",
    "Save the game? (y/n)",
    "Goodbye.",
];

impl Plain {
    fn start(args: &[&str], data: &Path) -> Plain {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mille"))
            .arg("--plain")
            .args(args)
            .env("GAMES_DATA_DIR", data)
            .env("XDG_DATA_HOME", data)
            .env("HOME", data)
            .current_dir(data)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn mille --plain");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Plain {
            child,
            stdin,
            lines,
            transcript: String::new(),
        }
    }

    /// Reads up to the next prompt; returns the lines read.
    fn read_prompt(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let Ok(line) = self.lines.recv_timeout(Duration::from_secs(30)) else {
                let _ = self.child.kill();
                panic!("no prompt from mille; transcript:\n{}", self.transcript);
            };
            self.transcript.push_str(&line);
            self.transcript.push('\n');
            let l = line.trim_end().to_string();
            let done = PROMPTS.iter().any(|p| l.ends_with(p));
            lines.push(l);
            if done {
                return lines;
            }
        }
    }

    fn send(&mut self, line: &str) {
        self.transcript.push_str(&format!(">>> {line}\n"));
        writeln!(self.stdin, "{line}").expect("write");
        self.stdin.flush().expect("flush");
    }
}

/// Plays a hand: picks, then plays the first card the engine accepts
/// (trying each slot), else discards. Answers "no" to extensions. Returns
/// the lines of the end-of-hand question.
fn play_hand(p: &mut Plain, mut lines: Vec<String>) -> Vec<String> {
    loop {
        let prompt = lines.last().cloned().unwrap_or_default();
        if prompt.ends_with("Another hand? (y/n)") || prompt.ends_with("Another game? (y/n)") {
            return lines;
        }
        if prompt.ends_with("P to pick a card.") || prompt.ends_with("or P to let it pass.") {
            p.send("p");
            lines = p.read_prompt();
            continue;
        }
        if prompt.ends_with("ESC cancels)") {
            // Which side to attack: the first one offered.
            let side = prompt
                .split('(')
                .next_back()
                .and_then(|s| s.chars().next())
                .map(String::from)
                .unwrap_or_default();
            p.send(&side);
            lines = p.read_prompt();
            continue;
        }
        if prompt.ends_with("really discard it? (y/n)") {
            p.send("y");
            lines = p.read_prompt();
            continue;
        }
        if prompt.ends_with("(y/n)") {
            p.send("n");
            lines = p.read_prompt();
            continue;
        }
        // Our turn after the pick: try each card, then discards.
        let mut moved = false;
        for cmd in [
            "up", "u1", "u2", "u3", "u4", "u5", "u6", "dp", "d1", "d2", "d3", "d4", "d5", "d6",
        ] {
            p.send(cmd);
            lines = p.read_prompt();
            if !lines.iter().any(|l| l.starts_with("! ")) {
                moved = true;
                break;
            }
        }
        assert!(moved, "no move was accepted:\n{}", p.transcript);
    }
}

#[test]
fn a_whole_hand_in_plain_mode() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut p = Plain::start(&["--seed", "11", "--name", "Tester"], data.path());
    let first = p.read_prompt();
    assert!(
        first.iter().any(|l| l.starts_with("Your hand: 1 ")),
        "{first:?}"
    );
    assert!(
        first
            .iter()
            .any(|l| l.starts_with("--- Hand 1, bsd rules. Deck: 89 cards."))
    );
    let end = play_hand(&mut p, first);
    let text = end.join("\n");
    for row in [
        "Milestones",
        "Each Safety",
        "All 4 Safeties",
        "Each Coup Fourré",
        "Trip Completed",
        "Safe Trip",
        "Delayed Action",
        "Extension",
        "Shut-Out",
        "Hand Total",
        "Overall Total",
        "Games",
    ] {
        assert!(text.contains(row), "{row} missing:\n{text}");
    }
    p.send("n");
    let lines = p.read_prompt();
    assert!(
        lines
            .last()
            .is_some_and(|l| l.ends_with("Save the game? (y/n)"))
    );
    p.send("n");
    let lines = p.read_prompt();
    assert_eq!(lines.last().map(String::as_str), Some("Goodbye."));
    assert!(p.child.wait().expect("exit").success());
}

#[test]
fn a_whole_game_and_the_high_scores() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut p = Plain::start(
        &["--seed", "5", "--name", "Tester", "--level", "random"],
        data.path(),
    );
    let mut lines = p.read_prompt();
    let mut hands = 0;
    loop {
        lines = play_hand(&mut p, lines);
        hands += 1;
        assert!(hands < 40, "the game never ended");
        if lines
            .last()
            .is_some_and(|l| l.ends_with("Another game? (y/n)"))
        {
            break;
        }
        p.send("y");
        lines = p.read_prompt();
    }
    p.send("n");
    p.read_prompt();
    p.send("n");
    p.read_prompt();
    assert!(p.child.wait().expect("exit").success());
    let out = Command::new(env!("CARGO_BIN_EXE_mille"))
        .arg("--scores")
        .env("GAMES_DATA_DIR", data.path())
        .output()
        .expect("mille --scores");
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("Best totals (over 5000):"), "{table}");
    assert!(table.contains(" 1. "), "someone made the table:\n{table}");
    assert!(
        table.contains("mille --clear-scores clears the table"),
        "{table}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_mille"))
        .args(["--clear-scores", "--yes"])
        .env("GAMES_DATA_DIR", data.path())
        .output()
        .expect("mille --clear-scores");
    assert!(out.status.success());
    let out = Command::new(env!("CARGO_BIN_EXE_mille"))
        .arg("--scores")
        .env("GAMES_DATA_DIR", data.path())
        .output()
        .expect("mille --scores");
    assert!(String::from_utf8_lossy(&out.stdout).contains("(none yet)"));
}

#[test]
fn three_players_with_the_classic_rules() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut p = Plain::start(
        &["--seed", "2", "--name", "Tester", "--players", "3"],
        data.path(),
    );
    let first = p.read_prompt();
    assert!(
        first
            .iter()
            .any(|l| l.starts_with("--- Hand 1, classic rules.")),
        "{first:?}"
    );
    assert!(first.iter().any(|l| l.starts_with("Computer 1: mileage")));
    let end = play_hand(&mut p, first);
    assert!(end.join("\n").contains("Trip Completed"));
}

#[test]
fn bad_options_are_refused_in_one_sentence() {
    let data = tempfile::tempdir().expect("tempdir");
    let out = Command::new(env!("CARGO_BIN_EXE_mille"))
        .args(["--rules", "bsd", "--players", "3"])
        .env("GAMES_DATA_DIR", data.path())
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the bsd rules are for exactly 2 players"),
        "{err}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_mille"))
        .arg("--help")
        .output()
        .expect("run");
    let help = String::from_utf8_lossy(&out.stdout);
    for opt in [
        "--rules",
        "--players",
        "--level",
        "--seed",
        "--plain",
        "--scores",
        "--clear-scores",
        "--name",
    ] {
        assert!(help.contains(opt), "{opt} missing from --help");
    }
}

#[test]
fn clearing_the_scores_asks_first() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mille"))
        .arg("--clear-scores")
        .env("GAMES_DATA_DIR", data.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    if let Some(mut stdin) = child.stdin.take() {
        writeln!(stdin, "n").expect("answer");
    }
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Clear the high-score table? (y/n)"), "{text}");
    assert!(text.contains("left alone"), "{text}");
}

/// A script's first line is a command, not the player's name: with no name
/// remembered and standard input not a terminal, the login name is used and
/// said once.
#[test]
fn a_script_is_not_asked_for_a_name() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mille"))
        .args(["--plain", "--seed", "4"])
        .env("GAMES_DATA_DIR", data.path())
        .env("USER", "scripter")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    if let Some(mut stdin) = child.stdin.take() {
        writeln!(stdin, "p\nq\ny\nn").expect("commands");
    }
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .next()
            .is_some_and(|l| l.starts_with("Playing as scripter;")),
        "{text}"
    );
    assert!(!text.contains("Your name"), "{text}");
    assert!(
        text.contains("Your hand: P "),
        "the first line was a pick:\n{text}"
    );
    let options =
        std::fs::read_to_string(data.path().join("mille").join("options.json")).unwrap_or_default();
    assert!(!options.contains("\"p\""), "{options}");
}

/// With no USER, LOGNAME or USERNAME (as in many containers) the default
/// name is still the real login name, not "Player".
#[test]
fn the_default_name_is_the_login_name_without_user_variables() {
    let Some(me) = Command::new("id")
        .arg("-un")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    else {
        return;
    };
    let data = tempfile::tempdir().expect("tempdir");
    let out = Command::new(env!("CARGO_BIN_EXE_mille"))
        .args(["--plain", "--seed", "4"])
        .env("GAMES_DATA_DIR", data.path())
        .env_remove("USER")
        .env_remove("LOGNAME")
        .env_remove("USERNAME")
        .stdin(Stdio::null())
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with(&format!("Playing as {me};")), "{text}");
}

#[test]
fn an_unusable_data_directory_is_one_clear_sentence() {
    let out = Command::new(env!("CARGO_BIN_EXE_mille"))
        .arg("--scores")
        .env("GAMES_DATA_DIR", "/dev/null/x")
        .output()
        .expect("run");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("mille: cannot create directory /dev/null/x/mille"),
        "{err}"
    );
    assert_eq!(err.matches("Not a directory").count(), 1, "{err}");
}

#[test]
fn saving_on_the_way_out_says_where() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mille"))
        .args(["--plain", "--seed", "4", "--name", "T"])
        .env("GAMES_DATA_DIR", data.path())
        .current_dir(data.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    if let Some(mut stdin) = child.stdin.take() {
        writeln!(stdin, "p\nq\ny\ny\nout.mille").expect("commands");
    }
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.ends_with("Game saved in out.mille.\nGoodbye.\n"),
        "{text}"
    );
}

#[test]
fn players_are_2_3_4_or_6() {
    let data = tempfile::tempdir().expect("tempdir");
    let out = Command::new(env!("CARGO_BIN_EXE_mille"))
        .args(["--players", "5", "--plain"])
        .env("GAMES_DATA_DIR", data.path())
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("[possible values: 2, 3, 4, 6]"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_mille"))
        .arg("--help")
        .output()
        .expect("run");
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("[possible values: 2, 3, 4, 6]"), "{help}");
    assert!(!help.contains("2..=6"), "{help}");
}

/// --stacking plays the classic rules' variant, is kept by the save file,
/// and is refused with other rules.
#[test]
fn stacking_is_a_classic_variant_kept_in_saves() {
    let data = tempfile::tempdir().expect("tempdir");
    let out = Command::new(env!("CARGO_BIN_EXE_mille"))
        .args(["--plain", "--rules", "bsd", "--stacking"])
        .env("GAMES_DATA_DIR", data.path())
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("--stacking is a variant of the classic rules, not of the bsd rules"),
        "{err}"
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_mille"))
        .args(["--plain", "--stacking", "--seed", "8", "--name", "T"])
        .env("GAMES_DATA_DIR", data.path())
        .current_dir(data.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    if let Some(mut stdin) = child.stdin.take() {
        writeln!(stdin, "p\ns\nst.mille\nq\ny").expect("commands");
    }
    let out = child.wait_with_output().expect("wait");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("--- Hand 1, classic rules with stacking."),
        "{text}"
    );
    let save = std::fs::read_to_string(data.path().join("st.mille")).expect("saved");
    assert!(save.contains("\"stacking\": true"), "{save}");
    let out = Command::new(env!("CARGO_BIN_EXE_mille"))
        .args(["--plain", "st.mille"])
        .env("GAMES_DATA_DIR", data.path())
        .current_dir(data.path())
        .stdin(Stdio::null())
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("--- Hand 1, classic rules with stacking."),
        "the restored game keeps the variant:\n{text}"
    );
}
