//! End-to-end: the lobby's keys for the name's token, against a real
//! `cubes serve`: `t` gets a new token, which the token file keeps in
//! place of the old (the old one no longer signs in, the new one does);
//! `s` asks, then signs out: the token file forgets the name and the
//! server refuses its token.

mod common;

use common::{BIN, Pty};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use table_client::{ClientError, Connection, Target};

/// A `cubes serve` on a free loopback port, stopped when dropped.
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
        let log = std::fs::File::create(root.join("server.log")).expect("log file");
        let child = Command::new(BIN)
            .args(["serve", "--listen", &address, "--no-socket"])
            .arg("--data")
            .arg(root.join("server"))
            .env("GAMES_DATA_DIR", root.join("server-env"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start cubes serve");
        let start = Instant::now();
        while TcpStream::connect(&address).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the server does not listen"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Server { child, address }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The token the file in `data` keeps for `name`, if any.
fn kept(data: &Path, name: &str) -> Option<String> {
    let text = std::fs::read_to_string(data.join("table-server/tokens.json")).ok()?;
    let file: serde_json::Value = serde_json::from_str(&text).expect("the token file");
    file["servers"]
        .as_object()
        .expect("servers")
        .values()
        .flat_map(|names| names.as_array().cloned().unwrap_or_default())
        .find(|c| c["name"] == name)
        .and_then(|c| c["token"].as_str().map(str::to_string))
}

/// Waits (up to 20 s) until `check` holds.
fn until(what: &str, mut check: impl FnMut() -> bool) {
    let start = Instant::now();
    while !check() {
        assert!(start.elapsed() < Duration::from_secs(20), "{what}");
        std::thread::sleep(Duration::from_millis(30));
    }
}

/// Whether `token` signs in as `name` at `address`.
fn signs_in(address: &str, name: &str, token: &str) -> Result<(), ClientError> {
    let target = Target::parse(address).expect("address");
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(async {
            let mut conn = Connection::open(&target).await?;
            let welcome = conn.hello(Some(name), Some(token)).await;
            conn.close().await;
            welcome.map(|_| ())
        })
}

#[test]
fn the_lobby_replaces_the_token_and_signs_out() {
    let root = tempfile::tempdir().expect("tempdir");
    let server = Server::start(root.path());
    let data = tempfile::tempdir().expect("tempdir");
    let mut ann = Pty::spawn(data.path(), &["--connect", &server.address, "ann"]);
    ann.wait_for("welcome, ann");
    let screen = ann.wait_for("s sign out");
    assert!(screen.contains("t new token"), "{screen}");
    until("the token is kept", || kept(data.path(), "ann").is_some());
    let first = kept(data.path(), "ann").expect("a token");

    ann.send("t");
    ann.wait_for("new token for ann");
    let second = kept(data.path(), "ann").expect("a token");
    assert_ne!(second, first);
    assert!(
        matches!(
            signs_in(&server.address, "ann", &first),
            Err(ClientError::Refused(_))
        ),
        "the old token still signs in"
    );
    signs_in(&server.address, "ann", &second).expect("the new token signs in");

    ann.send("s");
    let screen = ann.wait_for("Sign out of");
    assert!(screen.contains("nobody"), "{screen}");
    // Any other key than y keeps the name.
    ann.send("n");
    ann.wait_for("still signed in as ann");
    assert_eq!(kept(data.path(), "ann"), Some(second.clone()));
    ann.send("s");
    ann.wait_for("Sign out of");
    ann.send("y");
    ann.wait_for("You signed out of");
    assert_eq!(kept(data.path(), "ann"), None);
    assert!(
        signs_in(&server.address, "ann", &second).is_err(),
        "the revoked token still signs in"
    );
    ann.send("q");
    assert!(ann.wait_exit());
}
