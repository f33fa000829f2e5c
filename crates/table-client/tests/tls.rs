//! The client against the real table server over TLS on loopback, with a
//! certificate the test makes: trusted through the authority given
//! ([`Target::with_ca`]) it signs in, and its token is kept apart from a
//! plain server's; not trusted (the system's roots, or the wrong host
//! name), the connection is refused with the certificate's problem, and a
//! session gives up at once instead of trying again and again.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use table_client::protocol::ServerMessage;
use table_client::{ClientError, Connection, Link, Note, Session, Target, TokenStore};
use table_server::{Config, Running, TlsFiles};

const WAIT: Duration = Duration::from_secs(30);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// A self-signed certificate for 127.0.0.1 and localhost and its key, as
/// PEM files in `dir`.
fn certificate(dir: &Path) -> (PathBuf, PathBuf) {
    let made = rcgen::generate_simple_self_signed(vec!["127.0.0.1".into(), "localhost".into()])
        .expect("a certificate");
    let cert = dir.join("cert.pem");
    let key = dir.join("key.pem");
    std::fs::write(&cert, made.cert.pem()).expect("write");
    std::fs::write(&key, made.signing_key.serialize_pem()).expect("write");
    (cert, key)
}

/// A server over TLS on a loopback port, and its certificate's file.
fn tls_server(rt: &tokio::runtime::Runtime, dir: &Path) -> (Running, PathBuf) {
    let (cert, key) = certificate(dir);
    let mut c = Config::new(dir.join("server"));
    c.listen = "127.0.0.1:0".parse().expect("addr");
    c.bot_delay = Duration::ZERO;
    c.tls = Some(TlsFiles {
        cert: cert.clone(),
        key,
    });
    let server = rt.block_on(table_server::start(c)).expect("start");
    (server, cert)
}

#[test]
fn a_client_trusting_the_authority_signs_in_over_tls() {
    let dir = tempfile::tempdir().expect("dir");
    let rt = runtime();
    let (server, cert) = tls_server(&rt, dir.path());
    let port = server.addr.port();
    for (host, name) in [("127.0.0.1", "ann"), ("localhost", "abe")] {
        let target = Target::parse(&format!("wss://{host}:{port}"))
            .expect("a TLS address")
            .with_ca(cert.clone())
            .expect("an authority");
        let welcome = rt.block_on(async {
            let mut conn = Connection::open(&target).await.expect("open over TLS");
            assert!(conn.reaches_its_target());
            conn.hello(Some(name), None).await.expect("welcome")
        });
        assert_eq!(welcome.name, name);
    }

    // A session keeps its token under the TLS server's key, never under
    // the plain address of the same host and port.
    let tokens = TokenStore::in_dir(dir.path());
    let target = Target::parse_trusting(&format!("https://127.0.0.1:{port}/"), Some(&cert))
        .expect("a TLS address");
    let session = Session::start(target.clone(), Some("bea".into()), tokens.clone());
    let token = wait_for_welcome(&session);
    assert_eq!(
        tokens.get(&target).expect("tokens").map(|c| c.token),
        Some(token)
    );
    let plain = Target::parse(&format!("127.0.0.1:{port}")).expect("plain");
    assert_eq!(tokens.get(&plain).expect("tokens"), None);
    drop(session);
    rt.block_on(server.stop());
}

#[test]
fn an_untrusted_certificate_is_refused_with_its_problem() {
    let dir = tempfile::tempdir().expect("dir");
    let rt = runtime();
    let (server, cert) = tls_server(&rt, dir.path());
    let port = server.addr.port();

    // The system's roots do not know the test's certificate.
    let target = Target::parse(&format!("wss://127.0.0.1:{port}")).expect("tls");
    let e = rt
        .block_on(Connection::open(&target))
        .expect_err("an unknown authority");
    assert!(matches!(e, ClientError::Certificate { .. }), "{e:?}");
    let said = e.to_string();
    assert!(
        said.contains("not signed by an authority") && said.contains("--ca"),
        "{said}"
    );

    // Another authority than the server's.
    let other = tempfile::tempdir().expect("dir");
    let (wrong, _) = certificate(other.path());
    let e = rt
        .block_on(Connection::open(
            &target.clone().with_ca(wrong).expect("tls"),
        ))
        .expect_err("another authority");
    assert!(matches!(e, ClientError::Certificate { .. }), "{e:?}");

    // The right authority, but a name the certificate is not for.
    let elsewhere = Target::parse(&format!("wss://127.0.0.2:{port}"))
        .expect("tls")
        .with_ca(cert.clone())
        .expect("tls");
    if let Err(e) = rt.block_on(Connection::open(&elsewhere)) {
        // 127.0.0.2 reaches the server only where loopback is the whole
        // 127/8 (Linux); where it does, the name is what is refused.
        if !matches!(e, ClientError::Unreachable { .. }) {
            assert!(e.to_string().contains("another name"), "{e}");
        }
    }

    // An authority file that holds no certificate.
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "not a certificate\n").expect("write");
    let e = rt
        .block_on(Connection::open(
            &target.clone().with_ca(empty).expect("tls"),
        ))
        .expect_err("no authority");
    assert!(matches!(e, ClientError::Authority { .. }), "{e:?}");

    // Plain WebSocket on the TLS port is not a table connection.
    let plain = Target::parse(&format!("127.0.0.1:{port}")).expect("plain");
    assert!(rt.block_on(Connection::open(&plain)).is_err());

    // A session gives up at once, saying why, instead of knocking again.
    let tokens = TokenStore::in_dir(dir.path());
    let session = Session::start(target, Some("ann".into()), tokens.clone());
    // The first note is its end: no attempt to connect again.
    let why = match session.recv_timeout(WAIT) {
        Some(Note::Connection(Link::Failed(why))) => why,
        other => panic!("the session does not give up at once: {other:?}"),
    };
    assert!(why.contains("cannot be trusted"), "{why}");
    assert_eq!(session.failure(), Some(table_client::Failure::Other));
    assert!(tokens.load().expect("tokens").is_empty());
    drop(session);
    rt.block_on(server.stop());
}

/// Waits for the session's `welcome` and returns its token.
fn wait_for_welcome(session: &Session) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match session.recv_timeout(left).expect("welcome in time") {
            Note::Message(ServerMessage::Welcome { token, .. }) => return token,
            Note::Connection(Link::Failed(why)) => panic!("the session ended: {why}"),
            _ => {}
        }
    }
}
