//! A connection's link to another instance: when a client reaches this
//! instance about a table another instance runs, its messages about that
//! table go over one WebSocket to that instance, under the client's own
//! name and token, and every answer comes back to the client as it was
//! written. Clients see one server.
//!
//! When the other instance goes away, the client's connection is closed:
//! it reconnects (to any instance) and joins its tables again, which the
//! instance it reaches then runs or forwards.

use crate::Outbox;
use futures_util::{SinkExt, StreamExt};
use std::sync::Arc;
use std::time::Duration;
use table_protocol::{ClientMessage, ServerMessage, VERSION, WS_PATH};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

/// How long connecting to another instance and its `welcome` may take.
const CONNECT: Duration = Duration::from_secs(3);

/// What a link says it is in its `hello`: the instance it reaches never
/// forwards it further (a table it does not run is waited for, then taken
/// over), so that no link can lead back to where it started.
pub const FORWARDED: &str = "table-server forwarding";

/// The header a link proves itself with: the instances' shared secret
/// (`--link-secret-file`).
pub const LINK_HEADER: &str = "x-table-link";

/// Whether `given` is the link secret `secret`, compared in time that does
/// not depend on where they differ.
pub fn secret_matches(secret: &str, given: &str) -> bool {
    use sha2::{Digest, Sha256};
    let (a, b) = (
        Sha256::digest(secret.as_bytes()),
        Sha256::digest(given.as_bytes()),
    );
    a.iter()
        .zip(b.iter())
        .fold(0u8, |acc, (x, y)| acc | (x ^ y))
        == 0
}

/// The TLS setup links to instances speaking TLS use: the system's
/// authorities and this instance's own certificate chain (instances that
/// share a certificate, or one from a private authority, trust each
/// other).
pub fn link_tls(own_chain: Option<&std::path::Path>) -> Result<Arc<rustls::ClientConfig>, String> {
    use rustls_pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_native_certs::load_native_certs().certs {
        let _ = roots.add(cert);
    }
    if let Some(path) = own_chain {
        let certs = rustls_pki_types::CertificateDer::pem_file_iter(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        for cert in certs {
            let cert = cert.map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let _ = roots.add(cert);
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// How often a link checks that the other instance answers: one that
/// died without closing its sockets (a power cut, a network cut) is given
/// up after three silent periods.
const ALIVE: Duration = Duration::from_secs(3);

/// One connection's link to one other instance.
pub struct Link {
    tx: mpsc::UnboundedSender<String>,
}

impl Link {
    /// Connects to the instance at `address` (`ws://host:port`) as
    /// `name` with `token`; what it says goes to `out`.
    pub async fn open(
        address: &str,
        name: &str,
        token: &str,
        out: Outbox,
        secret: Option<&str>,
        tls: Option<&Arc<rustls::ClientConfig>>,
    ) -> Result<Link, String> {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let url = format!("{address}{WS_PATH}");
        let mut request = url
            .as_str()
            .into_client_request()
            .map_err(|e| format!("{url}: {e}"))?;
        if let Some(secret) = secret {
            let value = secret
                .parse()
                .map_err(|_| "the link secret is not a header's text".to_string())?;
            request.headers_mut().insert(LINK_HEADER, value);
        }
        let connector = tls.map(|c| tokio_tungstenite::Connector::Rustls(Arc::clone(c)));
        // The players' tokens travel in the hello: never in clear to an
        // instance that speaks TLS.
        let connecting =
            tokio_tungstenite::connect_async_tls_with_config(request, None, true, connector);
        let (mut ws, _) = tokio::time::timeout(CONNECT, connecting)
            .await
            .map_err(|_| format!("{url} did not answer"))?
            .map_err(|e| format!("cannot reach {url}: {e}"))?;
        let hello = ClientMessage::Hello {
            version: VERSION,
            name: Some(name.to_string()),
            token: Some(token.to_string()),
            client: Some(FORWARDED.to_string()),
            bot: None,
        };
        let hello = serde_json::to_string(&hello).map_err(|e| e.to_string())?;
        ws.send(Message::Text(hello.into()))
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        // The link's own welcome is not the client's business.
        let welcome = tokio::time::timeout(CONNECT, async {
            while let Some(msg) = ws.next().await {
                let Ok(Message::Text(text)) = msg else {
                    continue;
                };
                return match serde_json::from_str::<ServerMessage>(text.as_str()) {
                    Ok(ServerMessage::Welcome { .. }) => Ok(()),
                    Ok(ServerMessage::Error(e)) => Err(e.message),
                    _ => continue,
                };
            }
            Err("the connection closed".to_string())
        })
        .await
        .map_err(|_| format!("{url} did not welcome"))?;
        welcome.map_err(|why| format!("{url} refused: {why}"))?;
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        let ping = serde_json::to_string(&ClientMessage::Ping).map_err(|e| e.to_string())?;
        tokio::spawn(async move {
            let mut alive = tokio::time::interval(ALIVE);
            alive.tick().await;
            let mut heard = tokio::time::Instant::now();
            let gone = loop {
                tokio::select! {
                    msg = rx.recv() => match msg {
                        Some(text) => {
                            if ws.send(Message::Text(text.into())).await.is_err() {
                                break true;
                            }
                        }
                        // The client's connection ended.
                        None => {
                            let _ = ws.close(None).await;
                            break false;
                        }
                    },
                    msg = ws.next() => match msg {
                        Some(Ok(Message::Text(text))) => {
                            heard = tokio::time::Instant::now();
                            // The link's own pings' answers stay here.
                            if text.len() < 40 && text.as_str().contains("\"pong\"") {
                                continue;
                            }
                            if !out.send(text.as_str().into()) {
                                break false;
                            }
                        }
                        Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break true,
                        Some(Ok(_)) => {}
                    },
                    _ = alive.tick() => {
                        if heard.elapsed() > ALIVE * 3 {
                            break true;
                        }
                        let sent = tokio::time::timeout(
                            ALIVE,
                            ws.send(Message::Text(ping.clone().into())),
                        )
                        .await;
                        if !matches!(sent, Ok(Ok(()))) {
                            break true;
                        }
                    }
                }
            };
            if gone {
                out.close(
                    "the server instance running a table of yours went away: reconnect".into(),
                );
            }
        });
        Ok(Link { tx })
    }

    /// Sends a client's message over the link; false if the link is gone.
    pub fn send(&self, msg: &ClientMessage) -> bool {
        match serde_json::to_string(msg) {
            Ok(text) => self.tx.send(text).is_ok(),
            Err(_) => false,
        }
    }
}
