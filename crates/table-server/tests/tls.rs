//! The server over TLS (`--tls-cert`, `--tls-key`) on loopback, with a
//! certificate the test makes: a client that trusts it plays over WSS and
//! reads the page over HTTPS; one that does not trust it is refused, and
//! so is plain HTTP on the TLS port.

mod common;

use common::Client;
use std::sync::Arc;
use std::time::Duration;
use table_protocol::{ClientMessage, ServerMessage, VERSION};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::Connector;

/// A self-signed certificate for 127.0.0.1 and localhost, written as PEM
/// files in `dir`: (certificate, key, the certificate's DER).
fn certificate(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf, Vec<u8>) {
    let made = rcgen::generate_simple_self_signed(vec!["127.0.0.1".into(), "localhost".into()])
        .expect("a certificate");
    let cert = dir.join("cert.pem");
    let key = dir.join("key.pem");
    std::fs::write(&cert, made.cert.pem()).expect("write");
    std::fs::write(&key, made.signing_key.serialize_pem()).expect("write");
    (cert, key, made.cert.der().to_vec())
}

/// A TLS client trusting only `roots`.
fn client_config(roots: &[Vec<u8>]) -> Arc<rustls::ClientConfig> {
    let mut store = rustls::RootCertStore::empty();
    for der in roots {
        store
            .add(rustls_pki_types::CertificateDer::from(der.clone()))
            .expect("a root");
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Arc::new(
        rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("versions")
            .with_root_certificates(store)
            .with_no_client_auth(),
    )
}

async fn tls_server(dir: &std::path::Path) -> (table_server::Running, Vec<u8>) {
    let (cert, key, der) = certificate(dir);
    let mut config = common::config(&dir.join("data"));
    config.tls = Some(table_server::TlsFiles { cert, key });
    (table_server::start(config).await.expect("start"), der)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_trusts_the_certificate_plays_over_wss() {
    let dir = tempfile::tempdir().expect("dir");
    let (server, der) = tls_server(dir.path()).await;
    let url = format!("wss://127.0.0.1:{}/ws", server.addr.port());
    let (ws, _) = tokio_tungstenite::connect_async_tls_with_config(
        url,
        None,
        true,
        Some(Connector::Rustls(client_config(&[der]))),
    )
    .await
    .expect("a WSS connection");
    let mut c = Client::over(ws);
    c.send(&ClientMessage::Hello {
        version: VERSION,
        name: Some("ann".into()),
        token: None,
        client: None,
        bot: None,
    })
    .await;
    assert!(matches!(c.recv().await, ServerMessage::Welcome { .. }));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_is_served_over_https() {
    let dir = tempfile::tempdir().expect("dir");
    let (server, der) = tls_server(dir.path()).await;
    let tcp = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connect");
    let connector = tokio_rustls::TlsConnector::from(client_config(&[der]));
    let name = rustls_pki_types::ServerName::try_from("localhost").expect("name");
    let mut tls = connector.connect(name, tcp).await.expect("handshake");
    tls.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await
        .expect("write");
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), tls.read_to_end(&mut answer)).await;
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.contains("<html"), "{text}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_certificate_and_plain_http_are_refused() {
    let dir = tempfile::tempdir().expect("dir");
    let (server, _) = tls_server(dir.path()).await;
    // A client trusting another certificate for the same names.
    let other = tempfile::tempdir().expect("dir");
    let (_, _, stranger) = certificate(other.path());
    let url = format!("wss://127.0.0.1:{}/ws", server.addr.port());
    let refused = tokio_tungstenite::connect_async_tls_with_config(
        url,
        None,
        true,
        Some(Connector::Rustls(client_config(&[stranger]))),
    )
    .await;
    match refused {
        Err(e) => assert!(e.to_string().to_lowercase().contains("certificate"), "{e}"),
        Ok(_) => panic!("a certificate the client does not trust was accepted"),
    }
    // Plain WebSocket on the TLS port gets nowhere.
    let plain = tokio::time::timeout(
        Duration::from_secs(10),
        tokio_tungstenite::connect_async(format!("ws://{}/ws", server.addr)),
    )
    .await
    .expect("an answer within 10 s");
    assert!(plain.is_err(), "plain ws:// on the TLS port");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_that_cannot_be_read_stops_the_start_with_its_name() {
    let dir = tempfile::tempdir().expect("dir");
    let mut config = common::config(dir.path());
    config.tls = Some(table_server::TlsFiles {
        cert: dir.path().join("missing.pem"),
        key: dir.path().join("missing-key.pem"),
    });
    let e = table_server::start(config)
        .await
        .err()
        .expect("no start without its certificate");
    assert!(e.to_string().contains("missing.pem"), "{e}");
}
