//! A game ended from outside (the terminal closed, SIGHUP, SIGTERM,
//! Ctrl-C) ends at once, keeps the game in the autosave and leaves the
//! terminal as it found it; the next start offers to resume it and restores
//! the same board. The real binary, in a pseudo-terminal.

mod tui_support;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tui_support::Pty;

/// Where the game keeps its autosave, for the data directory `data`.
fn autosave(data: &Path) -> PathBuf {
    data.join("mille").join(mille_store::AUTOSAVE_FILE)
}

/// Starts a game with a fixed deal and plays two turns, then picks: the
/// board it shows then.
fn a_game_in_progress(dir: &Path, data: &Path, extra: &[&str]) -> (Pty, Vec<String>) {
    let mut args = vec!["--seed", "7", "--name", "Tester"];
    args.extend_from_slice(extra);
    let mut pty = Pty::spawn(&args, data, dir, 80, 24);
    for _ in 0..2 {
        let s = pty.wait_for("P to pick", 30);
        pty.send("p");
        pty.wait_change(&s, 5);
        let mut done = false;
        for a in ["dp ", "d1 ", "d2 ", "d3 ", "up "] {
            let before = pty.wait_for("U to use or D to discard", 30);
            pty.send(a);
            let s = pty.wait_change(&before, 5);
            std::thread::sleep(Duration::from_millis(100));
            if !s.contains("U to use or D") || pty.last_line().trim().is_empty() {
                done = true;
                break;
            }
        }
        assert!(done, "no card could be discarded:\n{}", pty.screen());
    }
    let s = pty.wait_for("P to pick", 30);
    pty.send("p");
    pty.wait_change(&s, 5);
    pty.wait_for("U to use or D to discard", 30);
    std::thread::sleep(Duration::from_millis(150));
    let board = pty.rows();
    (pty, board)
}

/// Ends `pty` by `how`, checks that it left within a few seconds with
/// 128 + `signal` and kept the game; then starts `mille` again, answers
/// yes to the question and checks the board is the one it left.
fn interrupted_then_resumed(how: impl FnOnce(&mut Pty), signal: u32, restored_modes: bool) {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let (mut pty, board) = a_game_in_progress(dir.path(), &data, &[]);
    assert!(!autosave(&data).exists(), "nothing is kept while playing");
    let t = Instant::now();
    how(&mut pty);
    assert_eq!(pty.wait_status(5), Some(128 + signal), "mille left at once");
    assert!(t.elapsed() < Duration::from_secs(5));
    if restored_modes {
        // Raw mode is the terminal driver's, not the screen's: that it was
        // left shows in the next start's question, typed in cooked mode.
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(pty.left_modes_on(), Vec::<&str>::new(), "terminal restored");
    }
    drop(pty);
    let kept = autosave(&data);
    let (save, _) = mille_store::SaveFile::load(&kept).expect("the autosave loads");
    assert_eq!(save.record.seed, 7);
    assert!(!save.record.actions.is_empty());

    let mut pty = Pty::spawn(&[], &data, dir.path(), 80, 24);
    let s = pty.wait_for("Resume it? (y/n)", 30);
    assert!(s.contains("A game was interrupted on "), "{s}");
    // A line typed in cooked mode: RETURN is a newline.
    pty.send("y\r");
    pty.wait_for("U to use or D to discard", 30);
    std::thread::sleep(Duration::from_millis(150));
    assert_eq!(pty.rows(), board, "the resumed game shows the same board");
    assert!(!kept.exists(), "a resumed game is in play, no longer kept");
    // A normal quit leaves no autosave: the resumed game is saved nowhere,
    // so leaving asks to save it first.
    pty.send("q");
    pty.wait_for("Really quit?", 10);
    pty.send("y");
    pty.wait_for("Save the game? (y/n)", 10);
    pty.send("n");
    assert_eq!(pty.wait_exit(10), Some(true));
    assert!(!kept.exists());
}

#[test]
fn sighup_keeps_the_game_and_the_next_start_resumes_it() {
    interrupted_then_resumed(|pty| pty.kill("HUP"), 1, false);
}

#[test]
fn sigterm_keeps_the_game_restores_the_terminal_and_the_next_start_resumes_it() {
    interrupted_then_resumed(|pty| pty.kill("TERM"), 15, true);
}

#[test]
fn ctrl_c_keeps_the_game_restores_the_terminal_and_the_next_start_resumes_it() {
    interrupted_then_resumed(|pty| pty.send("\x03"), 2, true);
}

#[test]
fn closing_the_terminal_keeps_the_game_and_the_next_start_resumes_it() {
    // Closing the terminal hangs up its session: SIGHUP, or the terminal
    // found gone.
    interrupted_then_resumed(Pty::close, 1, false);
}

#[test]
fn declining_to_resume_discards_the_kept_game() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let (mut pty, _) = a_game_in_progress(dir.path(), &data, &[]);
    pty.kill("TERM");
    assert_eq!(pty.wait_status(5), Some(143));
    drop(pty);
    assert!(autosave(&data).exists());
    let mut pty = Pty::spawn(&["--seed", "8"], &data, dir.path(), 80, 24);
    pty.wait_for("Resume it? (y/n)", 30);
    pty.send("x\r");
    pty.wait_for("Please answer y or n.", 10);
    pty.send("n\r");
    pty.wait_for("P to pick", 30);
    assert!(!autosave(&data).exists(), "declined: removed");
    pty.send("qy");
    assert_eq!(pty.wait_exit(10), Some(true));
    assert!(!autosave(&data).exists());
}

#[test]
fn plain_mode_keeps_the_game_on_sigterm_and_offers_it_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let mut pty = Pty::spawn(
        &["--plain", "--seed", "7", "--name", "Tester"],
        &data,
        dir.path(),
        100,
        40,
    );
    pty.wait_for("P to pick", 30);
    pty.send("p\r");
    pty.wait_for("U to use or D to discard", 30);
    std::thread::sleep(Duration::from_millis(100));
    let hand = |pty: &Pty| {
        pty.rows()
            .into_iter()
            .rev()
            .find(|r| r.starts_with("Your hand:"))
            .expect("the hand is shown")
    };
    let before = hand(&pty);
    pty.kill("TERM");
    assert_eq!(pty.wait_status(5), Some(143));
    drop(pty);
    let (save, _) = mille_store::SaveFile::load(&autosave(&data)).expect("kept");
    assert_eq!(save.record.actions.len(), 1, "the pick");

    let mut pty = Pty::spawn(&["--plain"], &data, dir.path(), 100, 40);
    pty.wait_for("Resume it? (y/n)", 30);
    pty.send("y\r");
    pty.wait_for("U to use or D to discard", 30);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(hand(&pty), before);
    assert!(!autosave(&data).exists());
}
