//! A session's `new_token` and `sign_out` against the real table server on
//! loopback: a new token is kept in place of the old one and signs in,
//! the old one no longer does; signing out forgets the token here, the
//! server refuses it after, and the session ends instead of registering
//! the name again.

use std::time::{Duration, Instant};
use table_client::protocol::{ClientMessage, ErrorCode, ServerMessage};
use table_client::{ClientError, Connection, Failure, Link, Note, Session, Target, TokenStore};
use table_server::Config;

const WAIT: Duration = Duration::from_secs(30);

/// Waits for the message `pick` accepts, skipping the others.
fn wait_for<T>(session: &Session, mut pick: impl FnMut(&ServerMessage) -> Option<T>) -> T {
    let deadline = Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match session
            .recv_timeout(left)
            .expect("the awaited message in time")
        {
            Note::Message(m) => {
                if let Some(t) = pick(&m) {
                    return t;
                }
            }
            Note::Connection(Link::Failed(why)) => panic!("the session ended: {why}"),
            Note::Connection(_) => {}
        }
    }
}

/// Says `hello` as `name` with `token` on a new connection.
async fn hello(target: &Target, name: &str, token: &str) -> Result<String, ClientError> {
    let mut conn = Connection::open(target).await.expect("open");
    let welcome = conn.hello(Some(name), Some(token)).await;
    conn.close().await;
    welcome.map(|w| w.token)
}

#[test]
fn a_new_token_replaces_the_old_and_signing_out_revokes_it() {
    let dir = tempfile::tempdir().expect("dir");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let mut c = Config::new(dir.path().join("server"));
    c.listen = "127.0.0.1:0".parse().expect("addr");
    let server = rt.block_on(table_server::start(c)).expect("start");
    let target = Target::parse(&format!("127.0.0.1:{}", server.addr.port())).expect("tcp");
    let tokens = TokenStore::in_dir(dir.path());
    let stored = || {
        tokens
            .named(&target, "ann")
            .expect("tokens")
            .map(|c| c.token)
    };

    let session = Session::start(target.clone(), Some("ann".into()), tokens.clone());
    let first = wait_for(&session, |m| match m {
        ServerMessage::Welcome { token, .. } => Some(token.clone()),
        _ => None,
    });
    assert_eq!(stored(), Some(first.clone()));

    session.send(ClientMessage::NewToken);
    let second = wait_for(&session, |m| match m {
        ServerMessage::Token { token } => Some(token.clone()),
        _ => None,
    });
    assert_ne!(second, first);
    // Kept before the game hears of it.
    assert_eq!(stored(), Some(second.clone()));
    let old = rt.block_on(hello(&target, "ann", &first));
    assert!(
        matches!(&old, Err(ClientError::Refused(e)) if e.code == ErrorCode::BadToken),
        "{old:?}"
    );
    rt.block_on(hello(&target, "ann", &second))
        .expect("the new token signs in");

    // The session still plays: the list comes.
    session.send(ClientMessage::List);
    wait_for(&session, |m| {
        matches!(m, ServerMessage::Tables { .. }).then_some(())
    });

    session.send(ClientMessage::SignOut);
    wait_for(&session, |m| (*m == ServerMessage::SignedOut).then_some(()));
    let deadline = Instant::now() + WAIT;
    let why = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match session.recv_timeout(left).expect("the session's end") {
            Note::Connection(Link::Failed(why)) => break why,
            Note::Connection(Link::Reconnecting { why, .. }) => {
                panic!("the session connects again after signing out: {why}")
            }
            _ => {}
        }
    };
    assert!(why.contains("signed out"), "{why}");
    assert_eq!(
        session.failure(),
        Some(Failure::SignedOut { name: "ann".into() })
    );
    assert_eq!(stored(), None);
    assert!(tokens.load().expect("tokens").is_empty());
    let revoked = rt.block_on(hello(&target, "ann", &second));
    assert!(revoked.is_err(), "the revoked token signs in: {revoked:?}");
    drop(session);
    rt.block_on(server.stop());
}
