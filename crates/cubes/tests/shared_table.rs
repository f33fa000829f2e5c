//! Two people at one cubes table of a real `cubes serve`, each in a
//! pseudo-terminal: leaving the game in progress asks first and says what
//! follows (a computer plays after the server's away time, and a game not
//! come back to counts as abandoned); when one leaves, the other sees the
//! countdown go down, then that a computer plays for them; back in the
//! lobby after the game ended, the one who left is told how.

mod common;

use common::{BIN, Pty};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The server's `--away`: short, so that the stand-in comes within the
/// test.
const AWAY: u64 = 5;

const LEFT: &str = "\x1b[D";
const DOWN: &str = "\x1b[B";

/// The server, stopped when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(root: &std::path::Path) -> (Server, String) {
    let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let address = format!("127.0.0.1:{port}");
    let child = Command::new(BIN)
        .args(["serve", "--listen", &address, "--no-socket"])
        .args(["--bot-delay", "0", "--away", &AWAY.to_string()])
        .arg("--data")
        .arg(root.join("server"))
        .env("GAMES_DATA_DIR", root.join("server-env"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start cubes serve");
    let server = Server(child);
    let start = Instant::now();
    while TcpStream::connect(&address).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the server does not listen at {address}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (server, address)
}

fn connect(address: &str, name: &str, data: &std::path::Path) -> Pty {
    Pty::spawn(data, &["--connect", address, "--jokers", "never", name])
}

/// Waits until `done` holds for the screen; the screen then.
fn wait_until(p: &Pty, secs: u64, what: &str, done: impl Fn(&str) -> bool) -> String {
    let end = Instant::now() + Duration::from_secs(secs);
    loop {
        let s = p.text();
        if done(&s) {
            return s;
        }
        assert!(
            Instant::now() < end,
            "timed out waiting for {what}; the screen shows:\n{s}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The seconds of the countdown the screen shows for `name`, if any.
fn countdown(screen: &str, name: &str) -> Option<u64> {
    let head = format!("{name} left: a computer plays for {name} in ");
    let at = screen.find(&head)? + head.len();
    screen[at..].split(' ').next()?.parse().ok()
}

/// Whether the screen says a computer plays for `name` (a line of its
/// own, not the countdown's end).
fn stood_in(screen: &str, name: &str) -> bool {
    screen.lines().any(|l| {
        l.trim_start()
            .starts_with(&format!("a computer plays for {name}"))
    })
}

#[test]
fn leaving_a_shared_cubes_table_asks_first_the_other_sees_the_countdown_and_the_leaver_is_told_the_end()
 {
    let root = tempfile::tempdir().expect("tempdir");
    let ann_dir = tempfile::tempdir().expect("tempdir");
    let bob_dir = tempfile::tempdir().expect("tempdir");
    let (_server, address) = serve(root.path());

    // Ann opens a table of two people (rated, as by default).
    let mut ann = connect(&address, "ann", ann_dir.path());
    ann.wait_for("you are ann");
    ann.keys("n");
    ann.wait_for("ratings: < rated");
    ann.keys(DOWN);
    for _ in 0..8 {
        if ann.text().contains("< a person >") {
            break;
        }
        ann.keys(LEFT);
    }
    ann.wait_for("< a person >");
    ann.keys("\r");
    ann.wait_for("Waiting for 1 more person");

    // Bob finds it, her rating beside her name, and sits down.
    let mut bob = connect(&address, "bob", bob_dir.path());
    bob.wait_for("ann 1500?, (free)");
    bob.keys("\r");
    bob.wait_for("Everybody is here");
    ann.wait_for("Everybody is here");
    assert!(bob.text().contains("q leave"), "{}", bob.text());

    // q asks first, and says what leaving does; any other key stays.
    for leave in ["q", "\x1b"] {
        bob.keys(leave);
        let asked = bob.wait_for("Leave the table?");
        assert!(
            asked.contains(&format!("A computer plays for you after {AWAY} s")),
            "{asked}"
        );
        assert!(asked.contains("abandoned"), "{asked}");
        bob.keys("n");
        let back = bob.wait_for("Good: the game goes on.");
        assert!(!back.contains("Leave the table?"), "{back}");
    }

    // Bob leaves: ann sees the countdown go down, then the stand-in.
    bob.keys("q");
    bob.wait_for("Leave the table?");
    bob.keys("y");
    assert!(bob.wait_exit(), "bob left cleanly");
    let first = wait_until(&ann, 20, "bob's countdown", |s| {
        countdown(s, "bob").is_some()
    });
    let n = countdown(&first, "bob").unwrap_or_default();
    assert!((1..=AWAY).contains(&n), "{first}");
    if n > 1 {
        wait_until(&ann, 10, "the countdown going down", |s| {
            countdown(s, "bob").is_some_and(|m| m < n) || stood_in(s, "bob")
        });
    }
    wait_until(&ann, AWAY + 20, "the stand-in", |s| stood_in(s, "bob"));

    // Ann plays the game out against bob's stand-in; bob, back, is told
    // how it ended (he abandoned it) before anything else.
    let start = Instant::now();
    while !ann.text().contains("Game over") {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the game did not end in time:\n{}",
            ann.text()
        );
        if !play(&mut ann, "ann") {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    let bob = connect(&address, "bob", bob_dir.path());
    // The lobby tells it at once.
    let told = bob.wait_for("while you were away");
    assert!(told.contains("Table 1 (cubes, "), "{told}");
    assert!(told.contains("any key: go on"), "{told}");
    assert!(told.contains("abandoned"), "{told}");
    let mut bob = bob;
    bob.keys(" ");
    let list = bob.wait_for("welcome, bob");
    assert!(!list.contains("while you were away"), "{list}");
}

/// What "Hold now banks 1,050" on the screen says holding banks.
fn hold_banks(screen: &str) -> Option<u32> {
    let (_, rest) = screen.split_once("Hold now banks ")?;
    let digits: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// One step of a simple player when it is `name`'s turn: roll, keep every
/// scoring die and roll the rest until holding banks 350, then hold.
/// Whether it was that player's turn.
fn play(p: &mut Pty, name: &str) -> bool {
    let screen = p.text();
    let key = if screen.contains(&format!("{name}: roll the dice")) {
        "r"
    } else if screen.contains(&format!("{name}: keep and roll, or hold")) {
        if hold_banks(&screen).is_some_and(|b| b >= 350) {
            "h"
        } else if screen.contains("Picked:") {
            "r"
        } else {
            "a"
        }
    } else {
        return false;
    };
    p.send(key);
    let start = Instant::now();
    while p.text() == screen && start.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(5));
    }
    true
}
