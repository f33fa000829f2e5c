//! `mille --connect` over TLS: a real `mille serve --tls-cert --tls-key`
//! with a certificate the test makes for 127.0.0.1 and localhost. Trusting
//! it with `--ca`, a player reaches the lobby at a `wss://` address, opens
//! a table and plays there; without `--ca` (the system's roots do not know
//! the certificate) the lobby says at once that the server cannot be
//! trusted, and why, instead of trying again and again.

mod tui_support;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tui_support::Pty;

/// The server, stopped when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A TLS server on a free loopback port: it, its port and its
/// certificate's file.
fn serve(data: &Path) -> (Server, u16, PathBuf) {
    let made = rcgen::generate_simple_self_signed(vec!["127.0.0.1".into(), "localhost".into()])
        .expect("a certificate");
    let cert = data.join("cert.pem");
    let key = data.join("key.pem");
    std::fs::write(&cert, made.cert.pem()).expect("write");
    std::fs::write(&key, made.signing_key.serialize_pem()).expect("write");
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let addr = format!("127.0.0.1:{port}");
    let child = Command::new(env!("CARGO_BIN_EXE_mille"))
        .args([
            "serve",
            "--listen",
            &addr,
            "--no-socket",
            "--bot-delay",
            "0",
        ])
        .arg("--tls-cert")
        .arg(&cert)
        .arg("--tls-key")
        .arg(&key)
        .arg("--data")
        .arg(data.join("server"))
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
    (server, port, cert)
}

#[test]
fn a_player_plays_over_tls_and_an_untrusted_server_is_refused() {
    let root = tempfile::tempdir().expect("temp dir");
    let (_server, port, cert) = serve(root.path());
    let ca = cert.to_str().expect("utf-8 path");
    let address = format!("wss://localhost:{port}");

    let ann_data = tempfile::tempdir().expect("temp dir");
    let d = ann_data.path();
    let mut ann = Pty::spawn(
        &["--connect", &address, "--ca", ca, "--name", "ann"],
        d,
        d,
        100,
        30,
    );
    let lobby = ann.wait_for("welcome, ann", 20);
    assert!(lobby.contains(&format!("at {address}")), "{lobby}");
    ann.send("n");
    ann.wait_for("new table", 10);
    ann.send("\r");
    let table = ann.wait_for("Your hand", 20);
    assert!(table.contains(&format!("at {address}")), "{table}");
    // A move goes over the TLS connection and is answered.
    let asked = ann.wait_for("P to pick", 20);
    ann.send("p");
    let end = Instant::now() + Duration::from_secs(10);
    while ann.screen() == asked {
        assert!(Instant::now() < end, "the pick was not answered");
        std::thread::sleep(Duration::from_millis(15));
    }
    ann.kill("TERM");
    let _ = ann.wait_exit(10);

    let bea_data = tempfile::tempdir().expect("temp dir");
    let d = bea_data.path();
    let mut bea = Pty::spawn(&["--connect", &address, "--name", "bea"], d, d, 100, 30);
    let refused = bea.wait_for("not signed by an authority", 20);
    assert!(refused.contains("cannot be trusted"), "{refused}");
    assert!(!refused.contains("reconnecting"), "{refused}");
    bea.send("q");
    assert_eq!(bea.wait_exit(10), Some(true));
}
