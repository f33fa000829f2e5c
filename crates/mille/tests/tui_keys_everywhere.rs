//! Every key the help screen and the score window list, pressed at every
//! screen of the real `mille` in a pseudo-terminal: the local board, its
//! score window and the end of a hand; then at a table server the lobby,
//! a seat at a table, a spectator's screen and both while the server is
//! down (reconnecting). After each key the program must still run and
//! show what the key promises: the screen it leads to, or the message the
//! help documents; a redraw must repaint a screen another program wrote
//! over, and the program must still run seconds later (a redraw that
//! asked the terminal for its cursor ended the game two seconds after the
//! key).

mod server_support;
mod tui_support;

use server_support::Server;
use std::ffi::OsStr;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};
use tui_support::Pty;

const ESC: &str = "\x1b";
const DEL: &str = "\x7f";
const CTRL_L: &str = "\x0c";
const UP: &str = "\x1b[A";
const DOWN: &str = "\x1b[B";
const RIGHT: &str = "\x1b[C";
const LEFT: &str = "\x1b[D";

/// How long any one answer may take on a loaded machine.
const WAIT: u64 = 30;

/// Waits until `done` holds for the screen, the program still running;
/// the screen then.
fn wait_until(p: &mut Pty, what: &str, done: impl Fn(&str) -> bool) -> String {
    let end = Instant::now() + Duration::from_secs(WAIT);
    loop {
        let s = p.screen();
        if done(&s) {
            return s;
        }
        if let Some(code) = p.wait_status(0) {
            panic!("mille ended (exit {code}) waiting for {what}; the screen shows:\n{s}");
        }
        assert!(
            Instant::now() < end,
            "timed out waiting for {what}; the screen shows:\n{s}"
        );
        std::thread::sleep(Duration::from_millis(15));
    }
}

/// Types `keys` and waits until the screen shows `shown`.
fn press(p: &mut Pty, keys: &str, shown: &str) -> String {
    p.send(keys);
    wait_until(p, &format!("{shown:?} after {keys:?}"), |s| {
        s.contains(shown)
    })
}

/// Types `keys` and waits until the screen no longer shows `gone`.
fn press_away(p: &mut Pty, keys: &str, gone: &str) -> String {
    p.send(keys);
    wait_until(p, &format!("{gone:?} to go after {keys:?}"), |s| {
        !s.contains(gone)
    })
}

/// Writes over the program's screen as another program writing to its
/// terminal does (`write`, a background job): the program is not told.
fn scribble(p: &mut Pty) {
    let tty = std::fs::read_link(format!("/proc/{}/fd/1", p.pid())).expect("the game's terminal");
    let mut t = OpenOptions::new()
        .write(true)
        .open(&tty)
        .expect("open the terminal");
    t.write_all(b"\x1b[2;3HSCRIBBLED OVER\x1b[9;20HSCRIBBLED OVER")
        .expect("write on the terminal");
    wait_until(p, "the scribble", |s| s.contains("SCRIBBLED OVER"));
}

/// The screen scribbled over, then `key`: the scribble must go and the
/// screen be whole again (the board's rows as they were, when `same`);
/// then the program must still run `hold` after the key.
fn redraw(p: &mut Pty, key: &str, same: bool, hold: Duration) {
    let before = p.rows();
    scribble(p);
    let t = Instant::now();
    p.send(key);
    wait_until(p, &format!("the redraw after {key:?}"), |s| {
        !s.contains("SCRIBBLED")
    });
    if same {
        // The rows are drawn again one by one: wait for the last.
        let end = Instant::now() + Duration::from_secs(WAIT);
        while p.rows() != before && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(15));
        }
        assert_eq!(p.rows(), before, "{key:?} repainted the screen as it was");
    }
    while t.elapsed() < hold {
        assert_eq!(p.wait_status(0), None, "mille still runs after {key:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(p.wait_status(0), None, "mille still runs after {key:?}");
}

/// The last line but one: the status line.
fn status(p: &Pty) -> String {
    let rows = p.rows();
    rows.get(rows.len().saturating_sub(2))
        .cloned()
        .unwrap_or_default()
}

/// The score window's lines of commands, from the screen.
fn score_window(s: &str) -> String {
    s.lines()
        .filter_map(|l| l.split('│').nth(1))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Discards a card, trying the slots in turn (a safety may not be
/// discarded, or asks first): the screen once one went, the turn passed.
fn discard_one(p: &mut Pty) -> String {
    for slot in ["p", "1", "2", "3", "4", "5", "6"] {
        press(p, "d", "Discard which card?");
        p.send(&format!("{slot} "));
        let s = wait_until(p, "the discard's answer", |s| {
            let refused = s.lines().last().is_some_and(|l| !l.trim().is_empty());
            !s.contains("Discard which card?")
                && (refused
                    || s.contains("really discard it?")
                    || !s.contains("U to use or D to discard"))
        });
        if s.contains("really discard it? (y/n)") {
            press_away(p, "n", "really discard it?");
            continue;
        }
        if !s.contains("U to use or D to discard") {
            return s;
        }
    }
    panic!("no card could be discarded:\n{}", p.screen());
}

#[test]
fn every_listed_key_works_at_the_local_board_its_score_window_and_the_end_of_a_hand() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let mut p = Pty::spawn(
        &["--seed", "7", "--name", "Tester"],
        &data,
        dir.path(),
        100,
        30,
    );
    let s = wait_until(&mut p, "the first turn", |s| s.contains("P to pick"));
    let window = score_window(&s);
    for listed in [
        "P pick",
        "U use card",
        "D discard",
        "O sort",
        "S save",
        "Q quit",
        "R redraw",
        "W window",
        "Z undo",
        "M mouse",
        "? help",
    ] {
        assert!(window.contains(listed), "{listed} is listed:\n{s}");
    }

    // ?: the help, every command in it; any key goes back.
    let help = press(&mut p, "?", "Help: any key returns");
    for line in [
        "save the game in a file",
        "take back your last move",
        "mouse: click-click",
    ] {
        assert!(help.contains(line), "{line}:\n{help}");
    }
    press_away(&mut p, " ", "Help: any key returns");

    // W: the score window with the bonuses, and back to the commands.
    let s = press(&mut p, "w", "Trip Completed");
    assert!(!score_window(&s).contains("P pick"), "{s}");
    // The keys work with the bonuses shown too.
    redraw(&mut p, "r", true, Duration::ZERO);
    press(&mut p, "?", "Help: any key returns");
    press_away(&mut p, " ", "Help: any key returns");
    press_away(&mut p, "W", "Trip Completed");
    wait_until(&mut p, "the commands", |s| {
        score_window(s).contains("P pick")
    });

    // O: sorting on and off, said and shown on the status line.
    press(&mut p, "o", "Your hand is now kept sorted.");
    assert!(status(&p).contains("sort on"), "{}", status(&p));
    press(&mut p, "O", "Your hand is no longer sorted.");
    assert!(status(&p).contains("sort off"), "{}", status(&p));

    // M: the mouse method, said and shown.
    press(&mut p, "m", "Mouse play: drag");
    assert!(status(&p).contains("drag"), "{}", status(&p));
    press(&mut p, "M", "Mouse play: click");
    assert!(status(&p).contains("click"), "{}", status(&p));

    // R and ^L: the whole screen again, and the game still on after them.
    redraw(&mut p, "R", true, Duration::ZERO);
    redraw(&mut p, CTRL_L, true, Duration::from_millis(2500));

    // Z with nothing to take back says so.
    press(&mut p, "z", "Nothing to undo in this hand");

    // P picks; D n discards; Z takes it back.
    press(&mut p, "p", "U to use or D to discard");
    discard_one(&mut p);
    let s = wait_until(&mut p, "the player's turn", |s| s.contains("P to pick"));
    assert!(!s.contains("Discard: (empty)"), "{s}");
    let s = press(&mut p, "Z", "Took back your last move");
    assert!(s.contains("Discard: (empty)"), "{s}");
    assert!(s.contains("U to use or D to discard"), "{s}");

    // U n: asked which card; ESC cancels; a card played either goes on
    // the board or the engine says why not.
    press(&mut p, "u", "Use which card?");
    press_away(&mut p, ESC, "Use which card?");
    press(&mut p, "U", "Use which card?");
    p.send("p ");
    let s = wait_until(&mut p, "the card used", |s| !s.contains("Use which card?"));
    let refused = !p.last_line().trim().is_empty();
    assert!(
        refused || !s.contains("U to use or D to discard"),
        "U did nothing:\n{s}"
    );

    // S: asks for a file and saves there.
    wait_until(&mut p, "a turn", |s| {
        s.contains("P to pick") || s.contains("U to use or D to discard")
    });
    press(&mut p, "s", "Save in file (RETURN alone cancels):");
    press(&mut p, "keys.mille\r", "Game saved in keys.mille.");
    assert!(dir.path().join("keys.mille").exists());

    // Q and DEL ask first; n goes on.
    press(&mut p, "q", "Really quit? (y/n)");
    press_away(&mut p, "n", "Really quit?");
    press(&mut p, DEL, "Really quit? (y/n)");
    press_away(&mut p, "N", "Really quit?");

    // The end of the hand: the score window with every bonus, and the
    // keys the question takes.
    let s = tui_support::play_out_hand(&mut p);
    assert!(
        s.contains("Trip Completed") && s.contains("Shut-Out"),
        "{s}"
    );
    redraw(&mut p, "r", true, Duration::ZERO);
    redraw(&mut p, CTRL_L, true, Duration::ZERO);
    press(&mut p, "?", "Help: any key returns");
    press(&mut p, " ", "Another hand? (y/n)");
    press(&mut p, "s", "Save in keys.mille? (y/n)");
    press(&mut p, "y", "Game saved in keys.mille.");
    press(&mut p, "x", "Answer y or n: play another hand?");
    press(&mut p, "y", "P to pick");

    // Q y leaves (nothing to save since).
    press(&mut p, "Q", "Really quit? (y/n)");
    p.send("y");
    let s = wait_until(&mut p, "the way out", |s| {
        s.contains("Save the game? (y/n)") || !s.contains("Really quit?")
    });
    if s.contains("Save the game? (y/n)") {
        p.send("n");
    }
    assert_eq!(p.wait_exit(WAIT), Some(true), "Q y leaves mille");
}

/// `mille --connect` to `server` as `name`, its data in `data`.
fn connect(server: &Server, name: &str, data: &Path) -> Pty {
    let addr = server.addr.to_string();
    Pty::spawn(&["--connect", &addr, "--name", name], data, data, 100, 30)
}

/// Starts the table server keeping its tables in `data`, at `addr` if
/// given.
fn serve(data: &Path, addr: Option<std::net::SocketAddr>) -> Server {
    let args = [OsStr::new("--data"), data.as_os_str()];
    match addr {
        Some(a) => Server::start_at(a, &args),
        None => Server::start(&args),
    }
}

/// The question before leaving a game in progress at a table where
/// nobody else plays.
const LEAVE: &str = "Leave the table? Nobody else plays at it";

#[test]
fn every_listed_key_works_in_the_lobby_at_a_table_as_a_spectator_and_while_reconnecting() {
    let dirs: Vec<_> = (0..3)
        .map(|_| tempfile::tempdir().expect("tempdir"))
        .collect();
    let server = serve(dirs[0].path(), None);
    let addr = server.addr;

    // The lobby: each key its help line lists.
    let mut ann = connect(&server, "ann", dirs[1].path());
    let s = wait_until(&mut ann, "the lobby", |s| s.contains("you are ann"));
    assert!(s.contains("n new table") && s.contains("r refresh"), "{s}");
    press(&mut ann, "r", "No table yet");
    press(&mut ann, "c", "table number and code:");
    press(&mut ann, "12", "table number and code: 12_");
    press(&mut ann, "\x7f", "table number and code: 1_");
    press_away(&mut ann, ESC, "table number and code:");
    // Play against a bot: none is connected here; r asks again.
    press(&mut ann, "b", "No bot is connected");
    press(&mut ann, "r", "No bot is connected");
    press_away(&mut ann, ESC, "No bot is connected");
    // The form: Up/Down line, Left/Right change, Esc back, Enter open.
    press(&mut ann, "n", "< bsd, 2 players >");
    press(&mut ann, RIGHT, "< classic, 3 players >");
    press(&mut ann, LEFT, "< bsd, 2 players >");
    press(&mut ann, DOWN, "> seat 2:");
    press_away(&mut ann, RIGHT, "< computer: classic >");
    press(&mut ann, LEFT, "< computer: classic >");
    press(&mut ann, UP, "> game:");
    press_away(&mut ann, ESC, "< bsd, 2 players >");
    press(&mut ann, "n", "< bsd, 2 players >");
    ann.send("\r");

    // A seat at a table: the keys that work there, and only those.
    let s = wait_until(&mut ann, "ann's turn", |s| s.contains("P to pick"));
    let window = score_window(&s);
    for listed in [
        "P pick",
        "U use card",
        "D discard",
        "O sort",
        "Q leave",
        "R redraw",
        "W window",
        "M mouse",
        "? help",
    ] {
        assert!(window.contains(listed), "{listed} is listed:\n{s}");
    }
    for gone in ["S save", "Z undo"] {
        assert!(
            !window.contains(gone),
            "{gone} is listed at a shared table:\n{s}"
        );
    }
    let help = press(&mut ann, "?", "Help: any key returns");
    assert!(!help.contains("save the game"), "{help}");
    assert!(!help.contains("take back your last move"), "{help}");
    press_away(&mut ann, " ", "Help: any key returns");
    press(&mut ann, "w", "Trip Completed");
    press_away(&mut ann, "w", "Trip Completed");
    press(&mut ann, "o", "Your hand is now kept sorted.");
    assert!(status(&ann).contains("sort on"), "{}", status(&ann));
    press(&mut ann, "o", "Your hand is no longer sorted.");
    press(&mut ann, "m", "Mouse play: drag");
    press(&mut ann, "m", "Mouse play: click");
    redraw(&mut ann, "R", true, Duration::ZERO);
    redraw(&mut ann, CTRL_L, true, Duration::from_millis(2500));
    press(&mut ann, "q", LEAVE);
    press_away(&mut ann, "n", LEAVE);
    press(&mut ann, DEL, LEAVE);
    press_away(&mut ann, "n", LEAVE);
    press(&mut ann, "p", "U to use or D to discard");
    press(&mut ann, "u", "Use which card?");
    press_away(&mut ann, ESC, "Use which card?");
    discard_one(&mut ann);
    wait_until(&mut ann, "ann's turn again", |s| s.contains("P to pick"));

    // A spectator: the lobby's w, the keys a spectator has, and q back
    // to the lobby, where the next key is not lost.
    let mut bob = connect(&server, "bob", dirs[2].path());
    wait_until(&mut bob, "ann's table in the lobby", |s| {
        s.contains("bsd, 2 players")
    });
    press(&mut bob, "r", "bsd, 2 players");
    press(&mut bob, "w", "Watching: the hands are hidden");
    let s = wait_until(&mut bob, "the spectator's prompt", |s| {
        s.contains("q goes back to the lobby")
    });
    let window = score_window(&s);
    for listed in ["Q lobby", "R redraw", "W window", "? help"] {
        assert!(window.contains(listed), "{listed} is listed:\n{s}");
    }
    for gone in [
        "P pick",
        "U use",
        "D discard",
        "O sort",
        "S save",
        "Z undo",
        "M mouse",
    ] {
        assert!(
            !window.contains(gone),
            "{gone} is listed to a spectator:\n{s}"
        );
    }
    let help = press(&mut bob, "?", "Help: any key returns");
    assert!(help.contains("back to the lobby"), "{help}");
    assert!(!help.contains("Mouse:"), "{help}");
    press_away(&mut bob, " ", "Help: any key returns");
    press(&mut bob, "w", "Trip Completed");
    press_away(&mut bob, "w", "Trip Completed");
    redraw(&mut bob, "r", true, Duration::ZERO);
    redraw(&mut bob, CTRL_L, true, Duration::from_millis(2500));
    for k in ["p", "u", "d", "o", "s", "z", "m"] {
        press(
            &mut bob,
            k,
            "You are watching this table: q goes back to the lobby.",
        );
        press_away(&mut bob, ESC, "You are watching this table");
    }
    press(
        &mut bob,
        "q",
        "Stop watching and go back to the lobby? (y/n)",
    );
    press_away(&mut bob, "n", "Stop watching");
    press(
        &mut bob,
        DEL,
        "Stop watching and go back to the lobby? (y/n)",
    );
    press(&mut bob, "y", "you are bob");
    // The very next key is the lobby's.
    press(&mut bob, "w", "Watching: the hands are hidden");

    // The server goes down: both screens say they are reconnecting, and
    // the keys still work there.
    server.kill();
    wait_until(&mut ann, "ann reconnecting", |s| s.contains("reconnecting"));
    wait_until(&mut bob, "bob reconnecting", |s| s.contains("reconnecting"));
    for p in [&mut ann, &mut bob] {
        redraw(p, "r", false, Duration::ZERO);
        redraw(p, CTRL_L, false, Duration::ZERO);
        press(p, "?", "Help: any key returns");
        press_away(p, " ", "Help: any key returns");
        press(p, "w", "Trip Completed");
        press_away(p, "w", "Trip Completed");
    }
    press(&mut ann, "o", "Your hand is now kept sorted.");
    press(&mut ann, "q", LEAVE);
    press_away(&mut ann, "n", LEAVE);
    press(
        &mut bob,
        "q",
        "Stop watching and go back to the lobby? (y/n)",
    );
    press_away(&mut bob, "n", "Stop watching");

    // Back: each says so and what happened meanwhile.
    let server = serve(dirs[0].path(), Some(addr));
    for p in [&mut ann, &mut bob] {
        let s = wait_until(p, "the reconnection told", |s| s.contains("Reconnected"));
        assert!(s.contains(" connected | table "), "{s}");
    }
    press(&mut ann, "?", "Help: any key returns");
    press_away(&mut ann, " ", "Help: any key returns");

    // Q y: ann leaves the program, bob goes to the lobby, then q quits it.
    press(&mut ann, "q", LEAVE);
    ann.send("y");
    assert_eq!(ann.wait_exit(WAIT), Some(true), "ann left");
    press(
        &mut bob,
        "q",
        "Stop watching and go back to the lobby? (y/n)",
    );
    press(&mut bob, "y", "you are bob");
    bob.send("q");
    assert_eq!(bob.wait_exit(WAIT), Some(true), "bob left");
    drop(server);
}
