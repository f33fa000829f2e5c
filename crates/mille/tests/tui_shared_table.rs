//! Two people at one table of a real `mille serve`, each in a
//! pseudo-terminal: leaving a game in progress asks first (Q mid-hand, and
//! n or Q at the end of a hand, where the question says what each key
//! does), and when one leaves, the other sees who left and the countdown
//! until a computer plays for them, then that a computer does.

mod tui_support;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tui_support::Pty;

/// The whole test's bound.
const BOUND: Duration = Duration::from_secs(120);

/// The server's `--away`: short, so that the stand-in comes within the
/// test.
const AWAY: u64 = 6;

/// The end-of-hand question at a shared table.
const READY: &str = "Ready for the next hand? y; Q leaves the table";

/// The server, stopped when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(data: &Path) -> (Server, String) {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let addr = format!("127.0.0.1:{port}");
    let child = Command::new(env!("CARGO_BIN_EXE_mille"))
        .args(["serve", "--listen", &addr, "--no-socket", "--data"])
        .arg(data)
        // The next hand waits for both to be ready (a short pause would
        // deal it by itself while the test reads the last).
        .args(["--bot-delay", "0", "--hand-pause", "600"])
        .args(["--away", &AWAY.to_string(), "--rate", "1000"])
        .env("GAMES_DATA_DIR", data)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start mille serve");
    let server = Server(child);
    let end = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(&addr).is_err() {
        assert!(Instant::now() < end, "the server did not start listening");
        std::thread::sleep(Duration::from_millis(50));
    }
    (server, addr)
}

fn connect(addr: &str, name: &str, data: &Path) -> Pty {
    Pty::spawn(&["--connect", addr, "--name", name], data, data, 100, 30)
}

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
/// one; whether a move was made.
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
    wait_until(p, 10, "the table's answer", |now| now != s);
    true
}

fn discard(p: &mut Pty) -> bool {
    // Discard what can be; at the end of a hand with only safeties left
    // (bsd keeps them from the discard pile), play them.
    for verb in ["d", "u"] {
        for slot in ["p", "1", "2", "3", "4", "5", "6"] {
            // ESC clears the message line, so that a refusal shows anew.
            p.send("\x1b");
            std::thread::sleep(Duration::from_millis(30));
            let before = p.screen();
            p.send(&format!("{verb}{slot} "));
            let end = Instant::now() + Duration::from_secs(10);
            loop {
                let now = p.screen();
                if !now.contains("U to use or D to discard") {
                    return true;
                }
                if now != before && (now.contains("There is no card") || now.contains("annot")) {
                    break;
                }
                if Instant::now() > end {
                    break;
                }
                std::thread::sleep(Duration::from_millis(15));
            }
        }
    }
    false
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
fn leaving_a_shared_table_asks_first_and_the_others_see_the_countdown() {
    let started = Instant::now();
    let server_dir = tempfile::tempdir().expect("tempdir");
    let ann_dir = tempfile::tempdir().expect("tempdir");
    let bob_dir = tempfile::tempdir().expect("tempdir");
    let (_server, addr) = serve(server_dir.path());

    // Ann opens a bsd table for two people (rated, as by default).
    let mut ann = connect(&addr, "ann", ann_dir.path());
    ann.wait_for("you are ann", 20);
    ann.send("n");
    ann.wait_for("ratings: < rated", 10);
    ann.send(DOWN);
    for _ in 0..10 {
        if ann.screen().contains("seat 2:  < a person >") {
            break;
        }
        let before = ann.screen();
        ann.send(LEFT);
        ann.wait_change(&before, 5);
    }
    ann.wait_for("seat 2:  < a person >", 5);
    ann.send("\r");
    ann.wait_for("Waiting for 1 more player to sit down", 20);

    // Bob joins from the lobby.
    let mut bob = connect(&addr, "bob", bob_dir.path());
    // Her rating beside her name (provisional: she has no rated game).
    bob.wait_for("ann 1500?, (free)", 20);
    bob.send("\r");
    bob.wait_for("Your hand", 20);
    wait_until(&ann, 20, "bob on ann's board", |s| s.contains("── bob"));

    // Mid-hand, Q asks first, and says what leaving does; n stays.
    bob.send("q");
    let asked = bob.wait_for("Leave the table?", 10);
    assert!(
        asked.contains(&format!(
            "Leave the table? A computer plays for you after {AWAY} s, and if you are not back"
        )),
        "{asked}"
    );
    assert!(asked.contains("counts as abandoned"), "{asked}");
    bob.send("n");
    wait_until(&bob, 10, "the question gone", |s| {
        !s.contains("Leave the table?")
    });

    // Both play until the hand is over: the question says what each key
    // does.
    while !(ann.screen().contains(READY) && bob.screen().contains(READY)) {
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
    // n is no way out: it asks, and n again goes back to the question;
    // so does Q.
    for key in ["n", "q"] {
        bob.send(key);
        let asked = bob.wait_for("Leave the table?", 10);
        assert!(asked.contains("counts as abandoned"), "{key}: {asked}");
        bob.send("n");
        let back = wait_until(&bob, 10, "the end-of-hand question again", |s| {
            s.contains(READY) && !s.contains("Leave the table?")
        });
        assert!(back.contains("Score: hand 1"), "{back}");
    }
    assert_eq!(bob.wait_status(0), None, "bob is still at the table");

    // Ann is ready; Bob leaves.
    ann.send("y");
    ann.wait_for("Waiting for the others to be ready", 10);
    bob.send("q");
    bob.wait_for("Leave the table?", 10);
    bob.send("y");
    assert_eq!(bob.wait_exit(20), Some(true), "bob left");

    // Ann sees that bob left and the countdown, counting down by itself,
    // then that a computer plays for bob (and the hand is dealt).
    let first = wait_until(&ann, 20, "bob's countdown", |s| {
        countdown(s, "bob").is_some()
    });
    let n = countdown(&first, "bob").unwrap_or_default();
    assert!((1..=AWAY).contains(&n), "{first}");
    if n > 1 {
        let later = wait_until(&ann, 10, "the countdown going down", |s| {
            countdown(s, "bob").is_some_and(|m| m < n) || stood_in(s, "bob")
        });
        assert!(!later.contains(&format!("in {n} s")), "{later}");
    }
    wait_until(&ann, AWAY + 20, "the stand-in", |s| stood_in(s, "bob"));
    ann.wait_for("Score: hand 2", 20);
    assert!(started.elapsed() < BOUND);
}
