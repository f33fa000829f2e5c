//! A closed terminal ends `cubes` within 3 s on every screen: the local
//! game, and with `--connect` the lobby, the table and the reconnecting
//! lobby and table (the real binaries: `cubes serve` and `cubes` in a
//! pseudo-terminal). Closing drops every descriptor of the terminal's
//! master side: the kernel hangs the terminal up and sends SIGHUP. Under
//! `setsid` the game is not the terminal's session leader and gets no
//! SIGHUP (as under a shell that does not pass it on): it must see the
//! terminal gone by itself. Only the child's own process id is watched.

mod common;

use common::{BIN, Pty};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a program may take to end once its terminal is closed.
const GONE: Duration = Duration::from_secs(3);

/// The game under `setsid -w`: not the terminal's session leader.
const SETSID: &[&str] = &["setsid", "-w"];

/// A `cubes serve` on a free loopback port, killed when dropped.
struct Server {
    child: Child,
    address: String,
}

impl Server {
    fn start(root: &Path) -> Server {
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let address = format!("127.0.0.1:{port}");
        let child = Command::new(BIN)
            .args(["serve", "--listen", &address, "--no-socket"])
            .args(["--bot-delay", "0", "--data"])
            .arg(root.join("server"))
            .env("GAMES_DATA_DIR", root.join("server-env"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
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

/// The game's process id: the child's, or under `setsid -w` its child's
/// (`setsid` itself, the terminal's session leader, dies of the hangup
/// and leaves the game behind).
fn game_pid(pty: &Pty) -> u32 {
    let pid = pty.pid();
    let children =
        std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
    match children.split_whitespace().next() {
        Some(child) => child.parse().expect("a process id"),
        None => pid,
    }
}

/// Whether process `pid` still runs (a zombie has ended: nobody may be
/// left to reap one whose parent died).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rsplit(')')
                .next()
                .and_then(|r| r.trim().chars().next());
            !matches!(state, Some('Z' | 'X'))
        }
        Err(_) => false,
    }
}

/// Closes the terminal and checks the game ended within [`GONE`].
fn closed_and_gone(pty: Pty, screen: &str) {
    closed_typing_and_gone(pty, "", screen);
}

/// [`closed_and_gone`], typing `wake` as the terminal closes (see
/// [`Pty::close_typing`]).
fn closed_typing_and_gone(mut pty: Pty, wake: &str, screen: &str) {
    let game = game_pid(&pty);
    let t = Instant::now();
    pty.close_typing(wake);
    while alive(game) && t.elapsed() <= GONE {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survived = alive(game);
    if survived {
        // Not left spinning behind a failed test.
        let _ = Command::new("kill")
            .args(["-KILL", &game.to_string()])
            .status();
    }
    assert!(
        !survived,
        "cubes still runs {:?} after its terminal closed at the {screen}",
        t.elapsed()
    );
}

/// `cubes --connect` as ann, at the lobby.
fn at_the_lobby(server: &Server, data: &Path, wrapper: &[&str]) -> Pty {
    let args = ["--connect", &server.address, "--jokers", "never", "ann"];
    let pty = Pty::spawn_wrapped(wrapper, data, &args, 24, 80);
    pty.wait_for("you are ann");
    pty.wait_for("No table yet");
    pty
}

/// At a table of two that ann opened (the other seat a computer's).
fn at_a_table(server: &Server, data: &Path, wrapper: &[&str]) -> Pty {
    let mut pty = at_the_lobby(server, data, wrapper);
    pty.keys("n");
    pty.wait_for("new table");
    pty.keys("\r");
    pty.wait_for("table 1 at");
    pty
}

#[test]
fn the_local_game_ends_when_its_terminal_closes() {
    let data = tempfile::tempdir().expect("tempdir");
    let pty = Pty::spawn(data.path(), &["--seed", "5", "--jokers", "never", "ann"]);
    pty.wait_for("Press r to roll");
    closed_and_gone(pty, "local game");
}

#[test]
fn the_lobby_ends_when_its_terminal_closes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path());
    closed_and_gone(at_the_lobby(&server, dir.path(), &[]), "lobby");
}

#[test]
fn the_lobby_ends_when_its_terminal_closes_without_a_hangup_signal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path());
    let pty = at_the_lobby(&server, dir.path(), SETSID);
    closed_and_gone(pty, "lobby (no SIGHUP)");
}

#[test]
fn the_lobby_ends_on_sighup_with_its_code() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path());
    let mut pty = at_the_lobby(&server, dir.path(), &[]);
    pty.signal("HUP");
    assert_eq!(pty.exit_code(), 129);
}

#[test]
fn the_reconnecting_lobby_ends_when_its_terminal_closes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path());
    let pty = at_the_lobby(&server, dir.path(), &[]);
    drop(server);
    pty.wait_for("reconnecting (attempt");
    closed_and_gone(pty, "reconnecting lobby");
}

#[test]
fn the_table_ends_when_its_terminal_closes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path());
    closed_and_gone(at_a_table(&server, dir.path(), &[]), "table");
}

#[test]
fn the_table_ends_when_its_terminal_closes_without_a_hangup_signal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path());
    let pty = at_a_table(&server, dir.path(), SETSID);
    // Help: a key that changes the screen and nothing else.
    closed_typing_and_gone(pty, "?", "table (no SIGHUP)");
}

#[test]
fn the_reconnecting_table_ends_when_its_terminal_closes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path());
    let pty = at_a_table(&server, dir.path(), &[]);
    drop(server);
    pty.wait_for("reconnecting (attempt");
    closed_and_gone(pty, "reconnecting table");
}

#[test]
fn a_name_taken_by_another_is_asked_for_again_and_the_prompt_ends_when_its_terminal_closes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path());
    let [first, second, third] = ["first", "second", "third"].map(|d| {
        let d = dir.path().join(d);
        std::fs::create_dir_all(&d).expect("a player's directory");
        d
    });
    let mut ann = at_the_lobby(&server, &first, &[]);
    ann.keys("q");
    assert_eq!(ann.exit_code(), 0);
    let args = ["--connect", &server.address, "ann"];
    let mut other = Pty::spawn(&second, &args);
    let prompt = other.wait_for("Play under another name: _");
    assert!(prompt.contains("The name \"ann\" is taken at"), "{prompt}");
    other.send("bob\r");
    other.wait_for("you are bob");
    // Ann, back with her token, is ann; another at the prompt closes it.
    let ann = at_the_lobby(&server, &first, &[]);
    let other = Pty::spawn(&third, &args);
    other.wait_for("Play under another name: _");
    closed_and_gone(other, "name prompt");
    closed_and_gone(ann, "lobby");
}

#[test]
fn no_server_at_the_address_is_said_at_once_with_the_ways_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let address = format!("127.0.0.1:{port}");
    let mut pty = Pty::spawn(dir.path(), &["--connect", &address, "ann"]);
    assert_eq!(pty.exit_code(), 1, "cubes gives up at once");
    std::thread::sleep(Duration::from_millis(100));
    let flat: String = pty.text().lines().collect();
    assert!(
        flat.contains(&format!("no table server answers at {address}")),
        "{flat}"
    );
    assert!(flat.contains("`cubes serve`"), "{flat}");
    assert!(flat.contains("cubes --connect HOST[:PORT]"), "{flat}");
}

#[test]
fn the_lobby_still_connecting_ends_when_its_terminal_closes() {
    // Something that takes the connection and never answers: the lobby
    // waits, saying it is connecting.
    let silent = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("a listener");
    let address = silent.local_addr().expect("its address").to_string();
    let dir = tempfile::tempdir().expect("tempdir");
    let pty = Pty::spawn(dir.path(), &["--connect", &address, "ann"]);
    pty.wait_for("connecting...");
    closed_and_gone(pty, "lobby connecting");
}
