//! Two people at a table server, each in a pseudo-terminal: `mille serve`
//! and two `mille --connect`. Ann opens a table of three (herself, a
//! person's seat, a computer) through the lobby, Bob joins it through the
//! lobby, both play until the hand is over and say they are ready for the
//! next; then Bob's program is killed mid-hand and started again: it comes
//! back to his seat with the same hand. Last the server stops: both screens
//! say they are reconnecting, and when it is back (with its data) play goes
//! on.

mod server_support;
mod tui_support;
use server_support::{Running, free_addr, serve_quiet};
use std::path::Path;
use std::time::{Duration, Instant};
use tui_support::Pty;

/// The whole test's bound.
const BOUND: Duration = Duration::from_secs(85);

/// `mille serve` at `addr` on `data`. The next hand waits for both to be
/// ready: a short pause would deal it by itself while the test is still
/// reading the last.
fn serve(addr: &str, data: &Path) -> Running {
    serve_quiet(addr, data, &["--hand-pause", "600"])
}

/// `mille --connect ADDR --name NAME` with its data (and so its tokens) in
/// `data`.
fn connect(addr: &str, name: &str, data: &Path) -> Pty {
    Pty::spawn(&["--connect", addr, "--name", name], data, data, 100, 30)
}

const RIGHT: &str = "\x1b[C";
const LEFT: &str = "\x1b[D";
const DOWN: &str = "\x1b[B";

/// Waits until `done` holds for the screen; the screen then.
fn wait_until(p: &Pty, secs: u64, what: &str, done: impl Fn(&str) -> bool) -> String {
    let end = Instant::now() + Duration::from_secs(secs);
    loop {
        let s = p.screen();
        if done(&s) {
            return s;
        }
        assert!(
            Instant::now() < end,
            "timed out waiting for {what}; the screen shows:\n{s}"
        );
        std::thread::sleep(Duration::from_millis(15));
    }
}

/// The player's move by the dumbest safe rule, when the screen asks for
/// one: pick, let a coup fourré pass, decline an extension, discard (the
/// card just picked first; a safety after the question). Returns whether
/// a move was made.
fn play_one(p: &mut Pty) -> bool {
    let s = p.screen();
    let key = if s.contains("P to pick") || s.contains("or P to let it pass") {
        "p"
    } else if s.contains("really discard it? (y/n)") {
        "y"
    } else if s.contains("Extend the trip") {
        "n"
    } else if s.contains("U to use or D to discard") {
        return discard(p);
    } else {
        return false;
    };
    p.send(key);
    // The question goes once the table has answered.
    wait_until(p, 10, "the table's answer", |now| now != s);
    true
}

fn discard(p: &mut Pty) -> bool {
    for slot in ["p", "1", "2", "3", "4", "5", "6"] {
        let before = p.screen();
        p.send(&format!("d{slot} "));
        let after = wait_until(p, 10, "the discard's answer", |now| {
            // Refused here (an empty slot): the message line says why.
            let refused = now.contains("There is no card in slot");
            (!now.contains("U to use or D to discard") || refused) && now != before
        });
        if !after.contains("There is no card in slot") {
            return true;
        }
    }
    false
}

/// The cards in the hand as the screen shows them, slot by slot.
fn hand(p: &Pty) -> Vec<String> {
    let rows = p.rows();
    let at = rows
        .iter()
        .position(|r| r.contains("── Your hand"))
        .expect("the hand is shown");
    rows[at + 1..at + 5]
        .iter()
        .map(|r| {
            let board = r.split('│').next().unwrap_or_default();
            let cards = board.split("Deck:").next().unwrap_or_default();
            cards.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect()
}

#[test]
fn two_people_play_a_killed_client_comes_back_and_a_server_restart_is_weathered() {
    let started = Instant::now();
    let server_dir = tempfile::tempdir().expect("tempdir");
    let ann_dir = tempfile::tempdir().expect("tempdir");
    let bob_dir = tempfile::tempdir().expect("tempdir");
    let addr = free_addr().to_string();
    let server = serve(&addr, server_dir.path());

    // Ann opens a table of three: the second seat a person's, the third a
    // computer's (the preset's level).
    let mut ann = connect(&addr, "ann", ann_dir.path());
    ann.wait_for("you are ann", 20);
    ann.send("n");
    ann.wait_for("new table", 10);
    ann.send(RIGHT);
    ann.wait_for("< classic, 3 players >", 10);
    ann.send(DOWN);
    ann.send(LEFT);
    ann.send(LEFT);
    let form = ann.wait_for("seat 2:  < a person >", 10);
    assert!(form.contains("seat 3:  < computer: classic >"), "{form}");
    ann.send("\r");
    let waiting = ann.wait_for("Waiting for 1 more player to sit down", 20);
    assert!(waiting.contains("Your hand"), "{waiting}");
    assert!(
        waiting.contains("connected | table 1 at 127.0.0.1:"),
        "{waiting}"
    );

    // Bob finds it in the lobby and joins.
    let mut bob = connect(&addr, "bob", bob_dir.path());
    // Ratings beside the names: ann has no rated game yet (provisional).
    let lobby = bob.wait_for("ann 1500?, (free), [classic ", 20);
    assert!(lobby.contains("classic, 3 players"), "{lobby}");
    bob.send("\r");
    let table = bob.wait_for("Your hand", 20);
    // The others at their places, under their names.
    assert!(table.contains("── ann"), "{table}");
    // Its name does not fit the score window: P3 there and on the board.
    assert!(table.contains("── P3: Computer 3 (classic)"), "{table}");
    assert!(table.contains("── You"), "{table}");
    let seen = wait_until(&ann, 20, "bob on ann's board", |s| s.contains("── bob"));
    assert!(!seen.contains("Waiting for 1 more player"), "{seen}");
    // The server keeps the game: no undo, no save.
    bob.send("z");
    bob.wait_for("No undo at a shared table", 10);
    bob.send("s");
    bob.wait_for("No saving at a shared table", 10);

    // Both play until the hand is over.
    let over = |s: &str| s.contains("Ready for the next hand? y; Q leaves the table");
    while !(over(&ann.screen()) && over(&bob.screen())) {
        assert!(
            started.elapsed() < BOUND,
            "the hand did not end in time; ann sees:\n{}\nbob sees:\n{}",
            ann.screen(),
            bob.screen()
        );
        let moved = play_one(&mut ann) | play_one(&mut bob);
        if !moved {
            std::thread::sleep(Duration::from_millis(15));
        }
    }
    let end = bob.screen();
    for row in [
        "Score: hand 1",
        "Trip Completed",
        "Hand Total",
        "Overall Total",
    ] {
        assert!(end.contains(row), "{row} missing from\n{end}");
    }
    // Ready for the next: the server deals it.
    ann.send("y");
    ann.wait_for("Waiting for the others to be ready", 10);
    bob.send("y");
    ann.wait_for("Score: hand 2", 20);
    bob.wait_for("Score: hand 2", 20);

    // A few moves into the hand, Bob's program dies.
    let mut moves = 0;
    while moves < 3 {
        assert!(started.elapsed() < BOUND, "hand 2 did not go on");
        let moved = play_one(&mut ann) as u32 + play_one(&mut bob) as u32;
        moves += moved;
        if moved == 0 {
            std::thread::sleep(Duration::from_millis(15));
        }
    }
    // Whatever was on its way has arrived.
    std::thread::sleep(Duration::from_millis(300));
    let before = hand(&bob);
    assert_eq!(before.len(), 4);
    assert!(before.iter().any(|r| !r.is_empty()), "{before:?}");
    drop(bob);

    // Started again with the same data (its token): back at the seat.
    let bob = connect(&addr, "bob", bob_dir.path());
    let back = bob.wait_for("Your hand", 20);
    assert!(back.contains("Score: hand 2"), "{back}");
    assert!(back.contains("── ann"), "{back}");
    assert_eq!(hand(&bob), before, "the same hand after the restart");

    // The server stops: both say they are reconnecting; it starts again
    // with its data, both are back at the table, and play goes on.
    let mut bob = bob;
    drop(server);
    ann.wait_for("reconnecting (attempt 1)...", 20);
    bob.wait_for("reconnecting (attempt", 20);
    let _server = serve(&addr, server_dir.path());
    ann.wait_for(" connected | table 1", 30);
    bob.wait_for(" connected | table 1", 30);
    let mut moves = 0;
    while moves < 4 {
        assert!(
            started.elapsed() < BOUND,
            "play did not go on after the server's restart; ann sees:\n{}\nbob sees:\n{}",
            ann.screen(),
            bob.screen()
        );
        let moved = play_one(&mut ann) as u32 + play_one(&mut bob) as u32;
        moves += moved;
        if moved == 0 {
            std::thread::sleep(Duration::from_millis(15));
        }
    }
    assert!(started.elapsed() < BOUND);
}
