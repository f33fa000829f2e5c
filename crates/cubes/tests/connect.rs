//! End-to-end: a table server (`cubes serve`) and three people at three
//! terminals (`cubes --connect`), each with its own data directory: one
//! opens a table for three people through the lobby, the others join it
//! there, and they play the game to its end with the keys of a game at
//! one terminal. `cubes stat --connect` shows them at the table while they
//! play, `cubes rank --connect` ranks them after.

mod common;

use common::{BIN, Pty, run};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The whole game must take less than this.
const LIMIT: Duration = Duration::from_secs(120);

/// Holding banks the turn once it reaches this.
const ENOUGH: u32 = 350;

/// The arrow keys as a terminal sends them.
const RIGHT: &str = "\x1b[C";
const LEFT: &str = "\x1b[D";
const DOWN: &str = "\x1b[B";

/// A `cubes serve` on a free port of the loopback, stopped when dropped.
struct Server {
    child: Child,
    address: String,
}

/// A loopback address nobody listens at now.
fn free_address() -> String {
    let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    format!("127.0.0.1:{port}")
}

impl Server {
    /// A server on a free port (taken a moment after it was found free).
    fn start(root: &Path) -> Server {
        Server::at(root, free_address())
    }

    /// A server at `address` with its data in `root` (again after a
    /// restart).
    fn at(root: &Path, address: String) -> Server {
        let data = root.join("server");
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(root.join("server.log"))
            .expect("log file");
        let child = Command::new(BIN)
            .args([
                "serve",
                "--listen",
                &address,
                "--no-socket",
                "--bot-delay",
                "0",
            ])
            .arg("--data")
            .arg(&data)
            .env("GAMES_DATA_DIR", root.join("server-env"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start cubes serve");
        let server = Server { child, address };
        let start = Instant::now();
        while TcpStream::connect(&server.address).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the server does not listen at {}",
                server.address
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A person at a terminal.
struct Person {
    name: &'static str,
    pty: Pty,
    data: tempfile::TempDir,
}

impl Person {
    fn connect(server: &Server, name: &'static str) -> Person {
        let data = tempfile::tempdir().expect("tempdir");
        let pty = Pty::spawn(
            data.path(),
            &[
                "--connect",
                &server.address,
                "--blitz",
                "--jokers",
                "never",
                name,
            ],
        );
        Person { name, pty, data }
    }

    /// Types `key` and waits (a little) until the screen shows its effect,
    /// so that a key is never typed twice at a screen not yet redrawn.
    fn press(&mut self, key: &str) {
        let before = self.pty.text();
        self.pty.send(key);
        let start = Instant::now();
        while self.pty.text() == before && start.elapsed() < Duration::from_secs(3) {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// One step of a simple player, if it is this person's turn: roll, keep
    /// every scoring die and roll the others until holding banks at least
    /// [`ENOUGH`], then hold. Whether it was this person's turn.
    fn play(&mut self) -> bool {
        let screen = self.pty.text();
        if screen.contains(&format!("{}: roll the dice", self.name)) {
            self.press("r");
        } else if screen.contains(&format!("{}: keep and roll, or hold", self.name)) {
            if hold_banks(&screen).is_some_and(|p| p >= ENOUGH) {
                self.press("h");
            } else if screen.contains("Picked:") {
                self.press("r");
            } else {
                self.press("a");
            }
        } else {
            return false;
        }
        true
    }
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

fn screens(people: &[Person]) -> String {
    people
        .iter()
        .map(|p| format!("--- {}:\n{}", p.name, p.pty.text()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn three_people_play_a_game_at_a_server_and_are_ranked_there() {
    let started = Instant::now();
    let root = tempfile::tempdir().expect("tempdir");
    let server = Server::start(root.path());

    // ann opens a Blitz table for three people: the other seats, computers
    // at first, become people's places.
    let mut ann = Person::connect(&server, "ann");
    ann.pty.wait_for("you are ann");
    ann.pty.keys("n");
    ann.pty.wait_for("computer: steady");
    ann.pty.keys(RIGHT);
    ann.pty.wait_for("Blitz to 7,500, 3 players");
    for _ in 0..2 {
        ann.pty.keys(DOWN);
        for _ in 0..3 {
            ann.pty.keys(LEFT);
        }
    }
    let form = ann.pty.text();
    assert_eq!(form.matches("a person").count(), 2, "{form}");
    ann.pty.keys("\r");
    let s = ann
        .pty
        .wait_for("Waiting for 2 more people to sit at table 1");
    assert!(s.contains("table 1 at 127.0.0.1:"), "{s}");

    // bob and cid find it in the lobby and sit down.
    let mut bob = Person::connect(&server, "bob");
    // Ratings beside the names (provisional: no rated game yet).
    bob.pty.wait_for("ann 1500?, (free), (free)");
    bob.pty.keys("\r");
    bob.pty.wait_for("You sit at seat 2 of table 1");
    ann.pty.wait_for("bob sits down at seat 2.");
    let mut cid = Person::connect(&server, "cid");
    cid.pty.wait_for("ann 1500?, bob 1500?, (free)");
    cid.pty.keys("\r");
    cid.pty.wait_for("You sit at seat 3 of table 1");
    for p in [&ann, &bob, &cid] {
        let s = p.pty.wait_for("Everybody is here");
        for name in ["ann", "bob", "cid"] {
            assert!(s.contains(name), "{name} missing at {}:\n{s}", p.name);
        }
    }

    // While they play, the server shows who sits at the table.
    let (ok, out, err) = run(ann.data.path(), &["stat", "--connect", &server.address], "");
    assert!(ok, "{err}");
    assert!(out.contains("table 1 (blitz, 3 players): playing"), "{out}");
    for (seat, name) in ["ann", "bob", "cid"].iter().enumerate() {
        assert!(out.contains(&format!("seat {}  {name}", seat + 1)), "{out}");
    }

    let mut people = [ann, bob, cid];
    let mut moves = 0;
    while !people.iter().all(|p| p.pty.text().contains("Game over")) {
        assert!(
            started.elapsed() < LIMIT,
            "the game did not end in time after {moves} keys:\n{}",
            screens(&people)
        );
        let mut idle = true;
        for p in &mut people {
            if p.play() {
                moves += 1;
                idle = false;
            }
        }
        if idle {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    // Everybody saw the same end.
    let end = people[0].pty.text();
    let winner = ["ann", "bob", "cid"]
        .into_iter()
        .find(|name| end.contains(&format!("1. {name} ")))
        .unwrap_or_else(|| panic!("a winner first in the standings:\n{end}"));
    for p in &mut people {
        let s = p.pty.text();
        assert!(s.contains("`cubes rank -b --connect 127.0.0.1:"), "{s}");
        p.pty.keys("q");
        assert!(p.pty.wait_exit(), "{} leaves cleanly", p.name);
        p.pty.wait_for(&format!("{winner} won at table 1."));
    }

    let (ok, out, err) = run(
        people[1].data.path(),
        &[
            "rank",
            "--connect",
            &server.address,
            "--blitz",
            "--min-games",
            "1",
        ],
        "",
    );
    assert!(ok, "{err}");
    for name in ["ann", "bob", "cid"] {
        assert!(out.contains(name), "{name} is not ranked:\n{out}");
    }
    assert!(out.contains("Blitz games"), "{out}");
    let (ok, out, _) = run(
        people[2].data.path(),
        &["stat", "--connect", &server.address],
        "",
    );
    assert!(ok);
    assert!(out.starts_with("Nobody is playing cubes"), "{out}");
}

#[test]
fn the_game_goes_on_after_the_server_comes_back() {
    let started = Instant::now();
    let root = tempfile::tempdir().expect("tempdir");
    let server = Server::start(root.path());
    let address = server.address.clone();
    // A Blitz table for two, the first the lobby offers: ann and a steady
    // computer player.
    let mut ann = Person::connect(&server, "ann");
    ann.pty.wait_for("you are ann");
    ann.pty.keys("n");
    ann.pty.wait_for("Blitz to 7,500, 2 players");
    ann.pty.keys("\r");
    ann.pty.wait_for("table 1 at");
    let mut moves = 0;
    while moves < 3 {
        assert!(started.elapsed() < LIMIT, "{}", ann.pty.text());
        if ann.play() {
            moves += 1;
        } else {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    // The server stops: the screen says the connection is being tried again.
    drop(server);
    ann.pty.wait_for("reconnecting (attempt 1)...");
    ann.pty
        .wait_for("reconnecting (attempt 2)... cannot reach the table server");
    let server = Server::at(root.path(), address);
    ann.pty.wait_for("Connected again.");
    // The restarted server kept the table: the game goes on to its end.
    while !ann.pty.text().contains("Game over") {
        assert!(
            started.elapsed() < LIMIT,
            "the game did not end in time:\n{}",
            ann.pty.text()
        );
        if !ann.play() {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    ann.pty.keys("q");
    assert!(ann.pty.wait_exit());
    drop(server);
}

#[test]
fn an_unreachable_server_is_said_plainly() {
    let data = tempfile::tempdir().expect("tempdir");
    // A port that was free a moment ago: nothing listens there.
    let address = free_address();
    for args in [
        vec!["rank", "--connect", &address],
        vec!["stat", "--connect", &address],
    ] {
        let (ok, out, err) = run(data.path(), &args, "");
        assert!(!ok, "{args:?}: {out}");
        assert!(
            err.contains(&format!("cannot reach the table server at {address}")),
            "{err}"
        );
        assert!(err.contains("cubes serve"), "{err}");
    }
    let (ok, _, err) = run(data.path(), &["--connect", &address, "--plain"], "");
    assert!(!ok);
    assert!(err.contains("--connect plays full screen"), "{err}");
}
