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
    let start = pty.wait_for("Your hand", 30);
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
    pty.wait_for("Score: hand 2", 30);
    // Quit: asks, then offers to save; no.
    pty.send("q");
    pty.wait_for("Really quit? (y/n)", 30);
    pty.send("y");
    pty.wait_for("Save the game? (y/n)", 30);
    pty.send("n");
    assert_eq!(pty.wait_exit(30), Some(true));
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
    pty.wait_for("P to pick", 30);
    pty.send("u1 ");
    pty.wait_for("Draw a card first", 30);
    pty.send("x");
    pty.wait_for("Unknown command", 30);
    pty.send("\x7f");
    pty.send("q");
    pty.wait_for("Really quit?", 30);
    pty.send("y");
    assert_eq!(pty.wait_exit(30), Some(true));
}

#[test]
fn the_first_run_asks_the_name_and_remembers_it() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut pty = Pty::spawn(&["--seed", "1"], data.path(), data.path(), 80, 24);
    pty.wait_for(
        "Your name for the high-score table (RETURN or ESC keeps tester)",
        30,
    );
    pty.send("Ana\r");
    pty.wait_for("Your turn", 30);
    pty.send("qy");
    assert_eq!(pty.wait_exit(30), Some(true));
    let options =
        std::fs::read_to_string(data.path().join("mille").join("options.json")).expect("options");
    assert!(options.contains("Ana"));
    let mut pty = Pty::spawn(&["--seed", "1"], data.path(), data.path(), 80, 24);
    let s = pty.wait_for("Your turn", 30);
    assert!(!s.contains("Your name"));
    pty.send("qy");
    assert_eq!(pty.wait_exit(30), Some(true));
}

#[test]
fn the_mouse_picks_and_double_click_smart_plays() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut pty = Pty::spawn(
        &["--seed", "42", "--name", "Tester"],
        data.path(),
        data.path(),
        80,
        24,
    );
    let s = pty.wait_for("P to pick", 30);
    // Find the deck and the P slot on screen (rows and columns are 1-based
    // in mouse reports).
    let rows = pty.rows();
    let deck_row = rows
        .iter()
        .position(|r| r.contains("Deck: 89"))
        .expect("deck shown");
    let deck_col = rows[deck_row].find("Deck:").expect("deck column");
    let click = |pty: &mut Pty, col: usize, row: usize| {
        pty.send(&format!(
            "\x1b[<0;{};{}M\x1b[<0;{};{}m",
            col + 2,
            row + 1,
            col + 2,
            row + 1
        ));
    };
    click(&mut pty, deck_col, deck_row);
    let after = pty.wait_change(&s, 5);
    assert!(
        after.contains("U to use or D to discard"),
        "the click picked:\n{after}"
    );
    // Double-click the picked card in slot P: played if legal, else discarded.
    let before = pty.screen();
    click(&mut pty, 4, deck_row);
    click(&mut pty, 4, deck_row);
    let after = pty.wait_change(&before, 5);
    std::thread::sleep(std::time::Duration::from_millis(200));
    let after = pty.wait_change(&after, 0);
    assert!(
        after.contains("You played") || after.contains("You discarded"),
        "the double-click moved a card:\n{after}"
    );
    pty.send("qy");
    pty.wait_for("Save the game?", 30);
    pty.send("n");
    assert_eq!(pty.wait_exit(30), Some(true));
}

#[test]
fn escape_at_the_name_question_keeps_the_login_name() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut pty = Pty::spawn(&["--seed", "1"], data.path(), data.path(), 80, 24);
    pty.wait_for("Your name for the high-score table", 30);
    pty.send("\x1b");
    pty.wait_for("Your turn", 30);
    pty.send("qy");
    assert_eq!(pty.wait_exit(30), Some(true));
    let options =
        std::fs::read_to_string(data.path().join("mille").join("options.json")).expect("options");
    assert!(options.contains("\"tester\""), "{options}");
}

#[test]
fn saving_on_the_way_out_says_where_after_the_screen_is_gone() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut pty = Pty::spawn(
        &["--seed", "42", "--name", "Tester"],
        data.path(),
        data.path(),
        80,
        24,
    );
    let s = pty.wait_for("P to pick", 30);
    pty.send("p");
    pty.wait_change(&s, 5);
    pty.send("q");
    pty.wait_for("Really quit? (y/n)", 30);
    pty.send("y");
    pty.wait_for("Save the game? (y/n)", 30);
    pty.send("y");
    pty.wait_for("Save in file", 30);
    pty.send("out.mille\r");
    assert_eq!(pty.wait_exit(30), Some(true));
    pty.wait_for("Game saved in out.mille.", 5);
    assert!(data.path().join("out.mille").exists());
}
