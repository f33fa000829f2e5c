//! End-to-end over TLS: a real `cubes serve --tls-cert --tls-key` with a
//! certificate the test makes, and the terminal clients at
//! `wss://`/`https://` addresses: trusting it with `--ca`, `cubes stat`
//! and `cubes rank --connect` answer and `cubes --connect` reaches the
//! lobby; without `--ca` (the system's roots do not know the certificate)
//! each is refused at once, saying the certificate is not trusted.

mod common;

use common::{BIN, Pty, run};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `cubes serve` over TLS on a free loopback port, stopped when dropped.
struct Server {
    child: Child,
    port: u16,
    cert: PathBuf,
}

impl Server {
    fn start(root: &Path) -> Server {
        let made = rcgen::generate_simple_self_signed(vec!["127.0.0.1".into(), "localhost".into()])
            .expect("a certificate");
        let cert = root.join("cert.pem");
        let key = root.join("key.pem");
        std::fs::write(&cert, made.cert.pem()).expect("write");
        std::fs::write(&key, made.signing_key.serialize_pem()).expect("write");
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let log = std::fs::File::create(root.join("server.log")).expect("log file");
        let child = Command::new(BIN)
            .args([
                "serve",
                "--listen",
                &format!("127.0.0.1:{port}"),
                "--no-socket",
            ])
            .arg("--tls-cert")
            .arg(&cert)
            .arg("--tls-key")
            .arg(&key)
            .arg("--data")
            .arg(root.join("server"))
            .env("GAMES_DATA_DIR", root.join("server-env"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start cubes serve");
        let start = Instant::now();
        while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the server does not listen"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Server { child, port, cert }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn stat_and_rank_over_tls_trust_the_authority_given() {
    let root = tempfile::tempdir().expect("tempdir");
    let server = Server::start(root.path());
    let data = tempfile::tempdir().expect("tempdir");
    let ca = server.cert.to_str().expect("utf-8 path");
    let wss = format!("wss://127.0.0.1:{}", server.port);
    let https = format!("https://localhost:{}/", server.port);
    let (ok, out, err) = run(data.path(), &["stat", "--connect", &wss, "--ca", ca], "");
    assert!(ok, "{err}");
    assert!(out.contains("Nobody is playing cubes"), "{out}");
    let (ok, out, err) = run(data.path(), &["rank", "--connect", &https, "--ca", ca], "");
    assert!(ok, "{err}");
    assert!(!out.is_empty(), "{out}");
    // The token given over TLS is kept under the TLS server only.
    let tokens =
        std::fs::read_to_string(data.path().join("table-server/tokens.json")).expect("tokens kept");
    assert!(
        tokens.contains(&format!("tls:localhost:{}", server.port)),
        "{tokens}"
    );
    assert!(!tokens.contains("tcp:"), "{tokens}");

    // Without the authority, refused at once with the reason.
    for args in [
        vec!["stat", "--connect", &wss],
        vec!["rank", "--connect", &https],
    ] {
        let (ok, out, err) = run(data.path(), &args, "");
        assert!(!ok, "{args:?}: {out}");
        assert!(err.contains("cannot be trusted"), "{err}");
        assert!(err.contains("not signed by an authority"), "{err}");
        assert!(err.contains("--ca"), "{err}");
    }
    // --ca belongs to a TLS address.
    let (ok, _, err) = run(
        data.path(),
        &[
            "stat",
            "--connect",
            &format!("127.0.0.1:{}", server.port),
            "--ca",
            ca,
        ],
        "",
    );
    assert!(!ok);
    assert!(err.contains("only for a TLS address"), "{err}");
}

#[test]
fn the_lobby_opens_over_tls_and_an_untrusted_server_is_said_plainly() {
    let root = tempfile::tempdir().expect("tempdir");
    let server = Server::start(root.path());
    let ca = server.cert.to_str().expect("utf-8 path");
    let wss = format!("wss://localhost:{}", server.port);

    let data = tempfile::tempdir().expect("tempdir");
    let mut ann = Pty::spawn(data.path(), &["--connect", &wss, "--ca", ca, "ann"]);
    ann.wait_for("welcome, ann");
    ann.send("q");
    assert!(ann.wait_exit());

    let other = tempfile::tempdir().expect("tempdir");
    let mut bea = Pty::spawn(other.path(), &["--connect", &wss, "bea"]);
    let screen = bea.wait_for("not signed by an authority");
    assert!(screen.contains("Cannot play on this server"), "{screen}");
    assert!(!screen.contains("reconnecting"), "{screen}");
    bea.send("q");
    assert!(bea.wait_exit());
}
