//! A closed terminal ends `mille` within 3 s on every screen: the local
//! game, and with `--connect` the lobby, the table and the reconnecting
//! lobby and table (the real binaries: `mille serve` and `mille` in a
//! pseudo-terminal). Closing drops every descriptor of the terminal's
//! master side: the kernel hangs the terminal up and sends SIGHUP. Under
//! `setsid` the game is not the terminal's session leader and gets no
//! SIGHUP (as under a shell that does not pass it on): it must see the
//! terminal gone by itself. Only the child's own process id is watched.

mod server_support;
mod tui_support;

use server_support::Server;
use std::path::Path;
use std::time::{Duration, Instant};
use tui_support::Pty;

/// How long a program may take to end once its terminal is closed.
const GONE: Duration = Duration::from_secs(3);

/// Closes the terminal and checks the game ended within [`GONE`].
fn closed_and_gone(mut pty: Pty, screen: &str) {
    let game = game_pid(&pty);
    let t = Instant::now();
    pty.close();
    while alive(game) && t.elapsed() <= GONE {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survived = alive(game);
    if survived {
        // Not left spinning behind a failed test.
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &game.to_string()])
            .status();
    }
    assert!(
        !survived,
        "mille still runs {:?} after its terminal closed at the {screen}",
        t.elapsed()
    );
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

/// `mille --connect ADDR --name NAME`, its data in `data`, 80 x 24, under
/// `wrapper` if not empty.
fn connect(server: &Server, name: &str, data: &Path, wrapper: &[&str]) -> Pty {
    let addr = server.addr.to_string();
    let args = ["--connect", addr.as_str(), "--name", name];
    Pty::spawn_wrapped(wrapper, &args, data, data, 80, 24)
}

/// The lobby, connected, for `ann`.
fn at_the_lobby(server: &Server, data: &Path, wrapper: &[&str]) -> Pty {
    let pty = connect(server, "ann", data, wrapper);
    pty.wait_for("you are ann", 20);
    pty.wait_for("No table yet", 20);
    pty
}

/// At a table of two that ann opened (the other seat a computer's).
fn at_a_table(server: &Server, data: &Path, wrapper: &[&str]) -> Pty {
    let mut pty = at_the_lobby(server, data, wrapper);
    pty.send("n");
    pty.wait_for("new table", 10);
    pty.send("\r");
    pty.wait_for("Your hand", 20);
    pty.wait_for("connected | table", 20);
    pty
}

/// A server with its data in a directory of its own, and a directory for
/// the player's data.
fn serve() -> (Server, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("server");
    let server = Server::start(&[std::ffi::OsStr::new("--data"), data.as_os_str()]);
    (server, dir)
}

const SETSID: &[&str] = &["setsid", "-w"];

#[test]
fn the_local_game_ends_when_its_terminal_closes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pty = Pty::spawn(
        &["--seed", "7", "--name", "Tester"],
        dir.path(),
        dir.path(),
        80,
        24,
    );
    pty.wait_for("P to pick", 30);
    closed_and_gone(pty, "local game");
}

#[test]
fn the_lobby_ends_when_its_terminal_closes() {
    let (server, dir) = serve();
    closed_and_gone(at_the_lobby(&server, dir.path(), &[]), "lobby");
}

#[test]
fn the_lobby_ends_when_its_terminal_closes_without_a_hangup_signal() {
    let (server, dir) = serve();
    closed_and_gone(
        at_the_lobby(&server, dir.path(), SETSID),
        "lobby (no SIGHUP)",
    );
}

#[test]
fn the_lobby_ends_on_sighup() {
    let (server, dir) = serve();
    let mut pty = at_the_lobby(&server, dir.path(), &[]);
    pty.kill("HUP");
    assert_eq!(pty.wait_status(3), Some(129), "mille left at the signal");
}

#[test]
fn the_reconnecting_lobby_ends_when_its_terminal_closes() {
    let (server, dir) = serve();
    let pty = at_the_lobby(&server, dir.path(), &[]);
    server.kill();
    pty.wait_for("reconnecting (attempt", 20);
    closed_and_gone(pty, "reconnecting lobby");
}

#[test]
fn the_table_ends_when_its_terminal_closes() {
    let (server, dir) = serve();
    closed_and_gone(at_a_table(&server, dir.path(), &[]), "table");
}

#[test]
fn the_table_ends_when_its_terminal_closes_without_a_hangup_signal() {
    let (server, dir) = serve();
    closed_and_gone(at_a_table(&server, dir.path(), SETSID), "table (no SIGHUP)");
}

#[test]
fn the_reconnecting_table_ends_when_its_terminal_closes() {
    let (server, dir) = serve();
    let pty = at_a_table(&server, dir.path(), &[]);
    server.kill();
    pty.wait_for("reconnecting (attempt", 20);
    closed_and_gone(pty, "reconnecting table");
}

/// `mille --connect ADDRESS` as ann, with its data in `data`.
fn connect_to(address: &str, data: &Path) -> Pty {
    Pty::spawn(&["--connect", address, "--name", "ann"], data, data, 80, 24)
}

#[test]
fn a_name_taken_by_another_is_asked_for_again_and_the_prompt_ends_when_its_terminal_closes() {
    let (server, dir) = serve();
    let [first, second, third] = ["first", "second", "third"].map(|d| {
        let d = dir.path().join(d);
        std::fs::create_dir_all(&d).expect("a player's directory");
        d
    });
    let mut ann = at_the_lobby(&server, &first, &[]);
    ann.send("q");
    assert_eq!(ann.wait_status(10), Some(0));
    // Another person, without ann's token, asks for her name.
    let mut other = connect(&server, "ann", &second, &[]);
    let prompt = other.wait_for("Play under another name: _", 20);
    assert!(prompt.contains("The name \"ann\" is taken at"), "{prompt}");
    assert_eq!(prompt.matches("taken").count(), 1, "said once:\n{prompt}");
    other.send("bob\r");
    other.wait_for("you are bob", 20);
    // The first one, back, is ann again: her token was kept.
    let ann = at_the_lobby(&server, &first, &[]);
    // Refused again, at the prompt, the terminal closes.
    let other = connect(&server, "ann", &third, &[]);
    other.wait_for("Play under another name: _", 20);
    closed_and_gone(other, "name prompt");
    closed_and_gone(ann, "lobby");
}

#[test]
fn the_same_player_is_known_under_another_spelling_of_the_servers_address() {
    let (server, dir) = serve();
    let port = server.addr.port();
    let mut ann = connect_to(&format!("127.0.0.1:{port}"), dir.path());
    ann.wait_for("you are ann", 20);
    ann.send("q");
    assert_eq!(ann.wait_status(10), Some(0));
    for spelling in [
        format!("localhost:{port}"),
        format!("http://127.0.0.1:{port}/"),
    ] {
        let mut ann = connect_to(&spelling, dir.path());
        let lobby = ann.wait_for("you are ann", 20);
        assert!(!lobby.contains("taken"), "{spelling}: {lobby}");
        ann.send("q");
        assert_eq!(ann.wait_status(10), Some(0), "{spelling}");
    }
}

#[test]
fn no_server_at_the_address_is_said_at_once_with_the_ways_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let mut pty = connect_to(&format!("127.0.0.1:{port}"), dir.path());
    assert_eq!(pty.wait_status(10), Some(1), "mille gives up at once");
    std::thread::sleep(Duration::from_millis(100));
    let said = pty.rows().join("\n");
    let flat = pty.rows().concat();
    assert!(
        flat.contains("no table server answers at 127.0.0.1:"),
        "{said}"
    );
    assert!(flat.contains("`mille serve`"), "{said}");
    assert!(flat.contains("mille --connect HOST[:PORT]"), "{said}");
    // Without an address: this machine's server, not running.
    let mut pty = Pty::spawn(&["--connect"], dir.path(), dir.path(), 80, 24);
    assert_eq!(pty.wait_status(10), Some(1));
    std::thread::sleep(Duration::from_millis(100));
    let flat = pty.rows().concat();
    assert!(
        flat.contains("no table server runs on this machine"),
        "{flat}"
    );
    assert!(flat.contains("`mille serve`"), "{flat}");
}

#[test]
fn the_lobby_still_connecting_ends_when_its_terminal_closes() {
    // Something that takes the connection and never answers: the lobby
    // waits, saying it is connecting.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("a listener");
    let address = silent.local_addr().expect("its address").to_string();
    let dir = tempfile::tempdir().expect("tempdir");
    let pty = connect_to(&address, dir.path());
    pty.wait_for("connecting...", 20);
    closed_and_gone(pty, "lobby connecting");
}
