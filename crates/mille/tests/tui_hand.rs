//! A whole hand in a pseudo-terminal, to the end-of-hand score window.

mod tui_support;
use tui_support::{Pty, play_out_hand};

#[test]
fn a_whole_hand_to_the_score_window() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut pty = Pty::spawn(
        &["--seed", "42", "--name", "Tester"],
        data.path(),
        data.path(),
        80,
        24,
    );
    let start = pty.wait_for("Your hand", 10);
    assert!(start.contains("Score: hand 1"));
    assert!(start.contains("Milestones"));
    assert!(start.contains("Deck:"));
    assert!(
        start.contains("P pick"),
        "the startup window lists the commands"
    );
    let end = play_out_hand(&mut pty);
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
        assert!(end.contains(row), "{row} missing from\n{end}");
    }
    assert!(end.contains("Another hand? (y/n)"));
    // Another hand: the second hand starts.
    pty.send("y");
    pty.wait_for("Score: hand 2", 10);
    // Quit: asks, then offers to save; no.
    pty.send("q");
    pty.wait_for("Really quit? (y/n)", 5);
    pty.send("y");
    pty.wait_for("Save the game? (y/n)", 5);
    pty.send("n");
    assert_eq!(pty.wait_exit(10), Some(true));
}

#[test]
fn a_mistake_rings_the_bell_and_says_why() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut pty = Pty::spawn(
        &["--seed", "42", "--name", "Tester"],
        data.path(),
        data.path(),
        80,
        24,
    );
    pty.wait_for("P to pick", 10);
    pty.send("u1 ");
    pty.wait_for("Draw a card first", 5);
    pty.send("x");
    pty.wait_for("Unknown command", 5);
    pty.send("\x7f");
    pty.send("q");
    pty.wait_for("Really quit?", 5);
    pty.send("y");
    assert_eq!(pty.wait_exit(10), Some(true));
}

#[test]
fn the_first_run_asks_the_name_and_remembers_it() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut pty = Pty::spawn(&["--seed", "1"], data.path(), data.path(), 80, 24);
    pty.wait_for("Your name for the high-score table [tester]", 10);
    pty.send("Ana\r");
    pty.wait_for("Your turn", 5);
    pty.send("qy");
    assert_eq!(pty.wait_exit(10), Some(true));
    let options = std::fs::read_to_string(data.path().join("mille").join("options.json")).expect("options");
    assert!(options.contains("Ana"));
    let mut pty = Pty::spawn(&["--seed", "1"], data.path(), data.path(), 80, 24);
    let s = pty.wait_for("Your turn", 10);
    assert!(!s.contains("Your name"));
    pty.send("qy");
    assert_eq!(pty.wait_exit(10), Some(true));
}
