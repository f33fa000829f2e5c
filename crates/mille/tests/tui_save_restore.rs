//! Save, quit, restore and compare, in a pseudo-terminal.

mod tui_support;
use tui_support::Pty;

/// The whole screen: board, score window, the log of moves, the prompt,
/// the status line and the (empty) message line.
fn board(pty: &Pty) -> Vec<String> {
    pty.rows()
}

#[test]
fn save_quit_restore_and_compare() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let mut pty = Pty::spawn(
        &["--seed", "7", "--name", "Tester"],
        &data,
        dir.path(),
        80,
        24,
    );
    pty.wait_for("P to pick", 30);
    // Play a few turns.
    for _ in 0..3 {
        let s = pty.wait_for("P to pick", 30);
        pty.send("p");
        pty.wait_change(&s, 5);
        let mut done = false;
        for a in ["dp ", "d1 ", "d2 ", "d3 ", "up "] {
            let before = pty.wait_for("U to use or D to discard", 30);
            pty.send(a);
            let s = pty.wait_change(&before, 5);
            std::thread::sleep(std::time::Duration::from_millis(100));
            if !s.contains("U to use or D") || pty.last_line().trim().is_empty() {
                done = true;
                break;
            }
        }
        assert!(done);
    }
    // Pick, so the P slot is full when saving.
    let s = pty.wait_for("P to pick", 30);
    pty.send("p");
    pty.wait_change(&s, 5);
    std::thread::sleep(std::time::Duration::from_millis(100));
    let saved_board = board(&pty);
    pty.send("s");
    pty.wait_for("Save in file (RETURN alone cancels):", 30);
    pty.send("\r");
    pty.wait_for("Save cancelled.", 30);
    pty.send("s");
    pty.wait_for("Save in file", 30);
    pty.send("game.mille\r");
    pty.wait_for("Game saved in game.mille", 30);
    let path = dir.path().join("game.mille");
    let text = std::fs::read_to_string(&path).expect("saved");
    assert!(text.contains("\"format\": \"mille-save\""));
    assert!(text.contains("\"level\": \"classic\""));
    // Saved: Q quits without asking to save again.
    pty.send("q");
    pty.wait_for("Really quit?", 30);
    pty.send("y");
    assert_eq!(pty.wait_exit(30), Some(true));

    let mut pty = Pty::spawn(&["game.mille"], &data, dir.path(), 80, 24);
    pty.wait_for("U to use or D to discard", 30);
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert_eq!(board(&pty), saved_board, "the restored game looks the same");
    assert!(
        saved_board
            .iter()
            .any(|r| r.starts_with("Computer played") || r.starts_with("Computer discarded")),
        "the log of moves is part of the comparison:\n{}",
        saved_board.join("\n")
    );
    assert_eq!(
        std::fs::read_to_string(&path).expect("still there"),
        text,
        "restoring leaves the file alone"
    );
    // S offers the same file.
    pty.send("s");
    pty.wait_for("Save in game.mille? (y/n)", 30);
    pty.send("y");
    pty.wait_for("Game saved in game.mille", 30);
    pty.send("qy");
    assert_eq!(pty.wait_exit(30), Some(true));
}
