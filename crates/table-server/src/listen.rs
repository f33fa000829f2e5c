//! The listeners, and what a connection must pass before any handler sees
//! it: a cap on connections per client address and in all (the total kept
//! under the process's file limit), a time limit on a request's headers,
//! `TCP_NODELAY`, and who the client is (the socket's address, or the one a
//! trusted proxy forwarded). A stranger who opens connections and never
//! speaks holds a few of them for a few seconds, never the server.

use crate::Shared;
use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Request};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::Notify;
use tower::ServiceExt;

/// Who a connection comes from, as the server counts and logs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Client {
    /// A TCP client at this address (or the one a trusted proxy named).
    Ip(IpAddr),
    /// A client on the Unix socket: a user of this machine.
    Local,
}

impl fmt::Display for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Client::Ip(ip) => ip.fmt(f),
            Client::Local => f.write_str("unix socket"),
        }
    }
}

impl Client {
    /// What the per-address caps count: an IPv4 address, or an IPv6
    /// address's /64 (one household or one machine is given a whole /64,
    /// so counting single IPv6 addresses would cap nobody). The Unix socket
    /// is not capped per address: its users are this machine's.
    pub fn key(self) -> Option<[u8; 8]> {
        match self {
            Client::Local => None,
            Client::Ip(IpAddr::V4(v4)) => {
                let o = v4.octets();
                Some([4, o[0], o[1], o[2], o[3], 0, 0, 0])
            }
            Client::Ip(IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
                Some(v4) => Client::Ip(IpAddr::V4(v4)).key(),
                None => {
                    let o = v6.octets();
                    Some([o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7]])
                }
            },
        }
    }
}

/// Counts the open connections, per client address and in all.
#[derive(Debug)]
pub struct Gate {
    per_address: usize,
    total: usize,
    open: AtomicUsize,
    by_address: Mutex<HashMap<[u8; 8], usize>>,
}

/// Why a connection was not let in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Full {
    /// The server holds as many connections as it may.
    Total(usize),
    /// This address holds as many as one address may.
    Address(usize),
}

impl fmt::Display for Full {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Full::Total(n) => write!(f, "the server holds {n} connections, its most"),
            Full::Address(n) => write!(f, "{n} connections from this address are the most"),
        }
    }
}

/// One place taken at the gate, given back when dropped.
#[derive(Debug)]
pub struct Permit {
    gate: Arc<Gate>,
    key: Option<[u8; 8]>,
    counted: bool,
}

impl Drop for Permit {
    fn drop(&mut self) {
        if self.counted {
            self.gate.open.fetch_sub(1, Ordering::SeqCst);
        }
        if let Some(key) = self.key
            && let Ok(mut by) = self.gate.by_address.lock()
            && let Some(n) = by.get_mut(&key)
        {
            *n = n.saturating_sub(1);
            if *n == 0 {
                by.remove(&key);
            }
        }
    }
}

impl Gate {
    /// A gate letting in `per_address` connections from one address and
    /// `total` in all.
    pub fn new(per_address: usize, total: usize) -> Arc<Gate> {
        Arc::new(Gate {
            per_address: per_address.max(1),
            total: total.max(1),
            open: AtomicUsize::new(0),
            by_address: Mutex::new(HashMap::new()),
        })
    }

    /// The most connections in all.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The connections open now.
    pub fn open(&self) -> usize {
        self.open.load(Ordering::SeqCst)
    }

    /// Takes a place for a connection from `client`: counted in the total
    /// when `counted`, and against its address unless it has none.
    pub fn admit(self: &Arc<Self>, client: Option<Client>, counted: bool) -> Result<Permit, Full> {
        if counted {
            let before = self.open.fetch_add(1, Ordering::SeqCst);
            if before >= self.total {
                self.open.fetch_sub(1, Ordering::SeqCst);
                return Err(Full::Total(self.total));
            }
        }
        let key = client.and_then(Client::key);
        let mut permit = Permit {
            gate: Arc::clone(self),
            key: None,
            counted,
        };
        if let Some(key) = key {
            let Ok(mut by) = self.by_address.lock() else {
                return Err(Full::Address(self.per_address));
            };
            let n = by.entry(key).or_insert(0);
            if *n >= self.per_address {
                // The permit's drop gives the total back.
                return Err(Full::Address(self.per_address));
            }
            *n += 1;
            permit.key = Some(key);
        }
        Ok(permit)
    }
}

/// What the listener knows of a connection, given to every request on it.
#[derive(Clone, Debug)]
pub struct Peer {
    /// Where the TCP connection comes from (`None`: the Unix socket).
    pub socket: Option<SocketAddr>,
    /// The connection's place at the gate: a WebSocket keeps it for as
    /// long as it lives.
    pub permit: Arc<Permit>,
}

impl Peer {
    /// The client: the socket's address, or, when the socket is a trusted
    /// proxy's, the nearest address it forwarded that is not itself a
    /// trusted proxy (`X-Forwarded-For`, else `Forwarded`).
    pub fn client(&self, headers: &HeaderMap, trusted: &[IpAddr]) -> Client {
        let Some(socket) = self.socket else {
            return Client::Local;
        };
        let ip = canonical(socket.ip());
        if !trusted.contains(&ip) {
            return Client::Ip(ip);
        }
        forwarded(headers)
            .into_iter()
            .rev()
            .map(canonical)
            .find(|a| !trusted.contains(a))
            .map_or(Client::Ip(ip), Client::Ip)
    }

    /// Whether the socket is a trusted proxy's.
    pub fn via_proxy(&self, trusted: &[IpAddr]) -> bool {
        self.socket
            .is_some_and(|s| trusted.contains(&canonical(s.ip())))
    }
}

/// An IPv4 address in IPv6 clothes is the IPv4 address.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// The addresses a proxy chain forwarded, nearest last: every
/// `X-Forwarded-For` entry, or else every `for=` of `Forwarded`.
fn forwarded(headers: &HeaderMap) -> Vec<IpAddr> {
    let xff: Vec<IpAddr> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|a| parse_ip(a.trim()))
        .collect();
    if !xff.is_empty() {
        return xff;
    }
    headers
        .get_all(axum::http::header::FORWARDED)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split([',', ';']))
        .filter_map(|pair| {
            let (k, v) = pair.trim().split_once('=')?;
            k.trim()
                .eq_ignore_ascii_case("for")
                .then(|| parse_ip(v.trim().trim_matches('"')))?
        })
        .collect()
}

/// An address as proxies write it: `1.2.3.4`, `1.2.3.4:5`, `[::1]:5`,
/// `::1`.
fn parse_ip(text: &str) -> Option<IpAddr> {
    if let Ok(ip) = text.parse() {
        return Some(ip);
    }
    if let Ok(sa) = text.parse::<SocketAddr>() {
        return Some(sa.ip());
    }
    text.strip_prefix('[')
        .and_then(|t| t.split_once(']'))
        .and_then(|(ip, _)| ip.parse().ok())
}

/// Raises the soft limit on open files to the hard one and answers it: a
/// server's connections are files.
pub fn raise_file_limit() -> u64 {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    match getrlimit(Resource::RLIMIT_NOFILE) {
        Ok((soft, hard)) => {
            if soft < hard && setrlimit(Resource::RLIMIT_NOFILE, hard, hard).is_ok() {
                hard
            } else {
                soft
            }
        }
        // No limit known: the historical default.
        Err(_) => 1024,
    }
}

/// The most connections a process with `files` open files may hold: what
/// is left once the database, the listeners, bot programs' pipes and the
/// page's files have their share.
pub fn connections_for(files: u64) -> usize {
    let files = usize::try_from(files).unwrap_or(usize::MAX);
    let reserve = (files / 8).max(64);
    files.saturating_sub(reserve).max(16)
}

/// A log line that a flood cannot turn into a flood of lines: at most
/// `per_minute` lines a minute, and the next line after a quiet spell says
/// how many were left out.
#[derive(Debug)]
pub struct Throttle {
    per_minute: u64,
    /// When the current minute began (`None`: no line yet), and the lines
    /// written in it.
    window: Mutex<(Option<Instant>, u64)>,
    dropped: AtomicU64,
}

impl Throttle {
    /// A throttle of `per_minute` lines a minute.
    pub const fn new(per_minute: u64) -> Throttle {
        Throttle {
            per_minute,
            window: Mutex::new((None, 0)),
            dropped: AtomicU64::new(0),
        }
    }

    /// Whether a line may be written now, and how many were left out
    /// since the last one written.
    pub fn allow(&self) -> Option<u64> {
        let Ok(mut w) = self.window.lock() else {
            return None;
        };
        let now = Instant::now();
        if w.0
            .is_none_or(|at| now.duration_since(at) >= Duration::from_secs(60))
        {
            *w = (Some(now), 0);
        }
        if w.1 >= self.per_minute {
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        w.1 += 1;
        Some(self.dropped.swap(0, Ordering::Relaxed))
    }
}

/// Logs a refusal at `warn`, naming the client, through a throttle.
macro_rules! refused {
    ($throttle:expr, $client:expr, $($rest:tt)+) => {
        if let Some(left_out) = $throttle.allow() {
            tracing::warn!(client = %$client, left_out, $($rest)+);
        }
    };
}
pub(crate) use refused;

/// Refusals of connections at the gate.
static GATE_LOG: Throttle = Throttle::new(30);
/// Failures to accept (out of files, most often).
static ACCEPT_LOG: Throttle = Throttle::new(6);

/// A listener's connections: TCP or a Unix socket.
pub trait Listener: Send + 'static {
    /// One connection.
    type Io: AsyncRead + AsyncWrite + Unpin + Send + 'static;
    /// The next connection and where it comes from (`None`: the Unix socket).
    fn accept(
        &mut self,
    ) -> impl std::future::Future<Output = std::io::Result<(Self::Io, Option<SocketAddr>)>> + Send;
}

impl Listener for tokio::net::TcpListener {
    type Io = tokio::net::TcpStream;
    async fn accept(&mut self) -> std::io::Result<(Self::Io, Option<SocketAddr>)> {
        let (stream, addr) = tokio::net::TcpListener::accept(self).await?;
        // A move's answer must not wait for the peer's delayed ACK.
        let _ = stream.set_nodelay(true);
        Ok((stream, Some(addr)))
    }
}

impl Listener for tokio::net::UnixListener {
    type Io = tokio::net::UnixStream;
    async fn accept(&mut self) -> std::io::Result<(Self::Io, Option<SocketAddr>)> {
        let (stream, _) = tokio::net::UnixListener::accept(self).await?;
        Ok((stream, None))
    }
}

/// Serves `app` on `listener` until `stop` is notified, over TLS when
/// given an acceptor.
pub async fn serve<L: Listener>(
    mut listener: L,
    app: Router,
    shared: Arc<Shared>,
    stop: Arc<Notify>,
    tls: Option<tokio_rustls::TlsAcceptor>,
) {
    let stopping = Arc::new(Notify::new());
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = stop.notified() => break,
        };
        let (io, socket) = match accepted {
            Ok(a) => a,
            Err(e) => {
                if let Some(left_out) = ACCEPT_LOG.allow() {
                    tracing::warn!(error = %e, left_out, "cannot accept a connection");
                }
                // Out of files: whatever frees one comes in its time, and
                // the loop must not spin meanwhile.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let trusted = &shared.config.trusted_proxies;
        let client = match socket {
            Some(s) => Client::Ip(canonical(s.ip())),
            None => Client::Local,
        };
        // A proxy's connections carry many clients: only the total counts
        // them here, and each WebSocket is counted by its forwarded client.
        let from =
            canonical(socket.map_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), |s| s.ip()));
        let per_address = (!trusted.contains(&from) && !shared.uncapped(client)).then_some(client);
        let permit = match shared.gate.admit(per_address, true) {
            Ok(p) => Arc::new(p),
            Err(full) => {
                shared.metrics.refused_connections.inc();
                refused!(GATE_LOG, client, why = %full, "a connection was refused");
                tokio::spawn(turn_away(io, full));
                continue;
            }
        };
        let peer = Peer { socket, permit };
        let app = app.clone();
        let header_timeout = shared.config.header_timeout;
        let stopping = Arc::clone(&stopping);
        let tls = tls.clone();
        tokio::spawn(async move {
            match tls {
                None => serve_http(io, peer, app, header_timeout, stopping).await,
                Some(acceptor) => {
                    // The handshake counts against the header time: a
                    // client that starts one and goes silent is let go.
                    let shaken = tokio::time::timeout(header_timeout, acceptor.accept(io)).await;
                    if let Ok(Ok(tls)) = shaken {
                        serve_http(tls, peer, app, header_timeout, stopping).await;
                    }
                }
            }
        });
    }
    stopping.notify_waiters();
}

/// Serves HTTP/1.1 (and WebSocket upgrades) on one connection until it
/// ends, or the server stops.
async fn serve_http<Io>(
    io: Io,
    peer: Peer,
    app: Router,
    header_timeout: Duration,
    stopping: Arc<Notify>,
) where
    Io: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = hyper::service::service_fn(move |mut req: Request<Incoming>| {
        req.extensions_mut().insert(peer.clone());
        app.clone().oneshot(req.map(Body::new))
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let conn = builder
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades();
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => {}
        () = stopping.notified() => {
            conn.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(Duration::from_secs(2), conn).await;
        }
    }
}

/// Why the certificate or its key could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A file could not be read, or holds no certificate or key.
    #[error("cannot read {path}: {why}")]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        why: String,
    },
    /// The key does not go with the certificate, or TLS refused them.
    #[error("cannot use the certificate {cert}: {why}")]
    Config {
        /// The certificate's file.
        cert: std::path::PathBuf,
        /// Why.
        why: String,
    },
}

/// A TLS acceptor from a PEM certificate chain and its private key.
pub fn tls_acceptor(
    cert: &std::path::Path,
    key: &std::path::Path,
) -> Result<tokio_rustls::TlsAcceptor, TlsError> {
    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::{CertificateDer, PrivateKeyDer};
    let read = |path: &std::path::Path, why: String| TlsError::Read {
        path: path.to_path_buf(),
        why,
    };
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .map_err(|e| read(cert, e.to_string()))?
        .collect::<Result<_, _>>()
        .map_err(|e| read(cert, e.to_string()))?;
    if chain.is_empty() {
        return Err(read(cert, "no certificate in it".into()));
    }
    let private = PrivateKeyDer::from_pem_file(key).map_err(|e| read(key, e.to_string()))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(|b| b.with_no_client_auth().with_single_cert(chain, private))
        .map_err(|e| TlsError::Config {
            cert: cert.to_path_buf(),
            why: e.to_string(),
        })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

/// Answers a connection over the caps with HTTP 503 and closes it, without
/// reading it: a browser shows why, a WebSocket client reads the status.
async fn turn_away<Io: AsyncWrite + Unpin>(mut io: Io, full: Full) {
    let body = format!("{full}: try again later\n");
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-type: text/plain; charset=utf-8\r\nretry-after: 10\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        let _ = io.write_all(response.as_bytes()).await;
        let _ = io.shutdown().await;
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn the_gate_caps_each_address_and_the_total_and_frees_on_drop() {
        let gate = Gate::new(2, 3);
        let a = Client::Ip("10.0.0.1".parse().expect("ip"));
        let b = Client::Ip("10.0.0.2".parse().expect("ip"));
        let a1 = gate.admit(Some(a), true).expect("first");
        let a2 = gate.admit(Some(a), true).expect("second");
        assert_eq!(gate.admit(Some(a), true).unwrap_err(), Full::Address(2));
        // The refusal gave its place in the total back.
        let b1 = gate.admit(Some(b), true).expect("another address");
        assert_eq!(gate.admit(Some(b), true).unwrap_err(), Full::Total(3));
        assert_eq!(gate.open(), 3);
        drop(a1);
        let b2 = gate.admit(Some(b), true).expect("a place freed");
        drop((a2, b1, b2));
        assert_eq!(gate.open(), 0);
        assert!(gate.by_address.lock().expect("lock").is_empty());
    }

    #[test]
    fn ipv6_addresses_count_by_their_64_and_mapped_ipv4_as_ipv4() {
        let one = Client::Ip("2001:db8:1:2::1".parse().expect("ip"));
        let two = Client::Ip("2001:db8:1:2:ffff::9".parse().expect("ip"));
        let other = Client::Ip("2001:db8:1:3::1".parse().expect("ip"));
        assert_eq!(one.key(), two.key());
        assert_ne!(one.key(), other.key());
        let mapped = Client::Ip("::ffff:10.0.0.1".parse().expect("ip"));
        let v4 = Client::Ip("10.0.0.1".parse().expect("ip"));
        assert_eq!(mapped.key(), v4.key());
        assert_eq!(Client::Local.key(), None);
    }

    fn peer(socket: &str) -> Peer {
        Peer {
            socket: Some(socket.parse().expect("socket address")),
            permit: Arc::new(Gate::new(1, 1).admit(None, false).expect("permit")),
        }
    }

    #[test]
    fn a_forwarded_address_counts_only_from_a_trusted_proxy() {
        let mut h = HeaderMap::new();
        h.insert(
            "x-forwarded-for",
            HeaderValue::from_static("203.0.113.9, 198.51.100.7, 10.0.0.5"),
        );
        let proxy: IpAddr = "10.0.0.5".parse().expect("ip");
        let edge: IpAddr = "127.0.0.1".parse().expect("ip");
        // Not trusted: the header is the client's own words.
        assert_eq!(peer("127.0.0.1:4000").client(&h, &[]), Client::Ip(edge));
        // Trusted: the nearest address that is not a trusted proxy.
        assert_eq!(
            peer("127.0.0.1:4000").client(&h, &[edge, proxy]),
            Client::Ip("198.51.100.7".parse().expect("ip"))
        );
        let mut f = HeaderMap::new();
        f.insert(
            axum::http::header::FORWARDED,
            HeaderValue::from_static("for=192.0.2.60;proto=https, for=\"[2001:db8::1]:4711\""),
        );
        assert_eq!(
            peer("127.0.0.1:4000").client(&f, &[edge]),
            Client::Ip("2001:db8::1".parse().expect("ip"))
        );
        // A proxy that forwarded nothing: the proxy itself.
        assert_eq!(
            peer("127.0.0.1:4000").client(&HeaderMap::new(), &[edge]),
            Client::Ip(edge)
        );
    }

    #[test]
    fn the_connection_cap_leaves_files_for_the_rest() {
        assert_eq!(connections_for(1024), 896);
        assert_eq!(connections_for(256), 192);
        assert!(connections_for(1_048_576) < 1_048_576);
        assert_eq!(connections_for(10), 16);
    }

    #[test]
    fn a_throttle_lets_so_many_lines_through_and_counts_the_rest() {
        let t = Throttle::new(2);
        assert_eq!(t.allow(), Some(0));
        assert_eq!(t.allow(), Some(0));
        assert_eq!(t.allow(), None);
        assert_eq!(t.allow(), None);
        assert_eq!(t.dropped.load(Ordering::Relaxed), 2);
    }
}
