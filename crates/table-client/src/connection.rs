//! One WebSocket connection to a table server, over TCP (plain or TLS) or
//! its Unix socket: opening it, sending and reading protocol messages
//! (typed, or as raw text for tests and fuzzers), and the `hello`
//! handshake.

use crate::Target;
use futures_util::{SinkExt, StreamExt};
use std::time::Duration;
use table_protocol::{
    BotInfo, ClientMessage, ErrorBody, GameInfo, Limits, SeatRef, ServerMessage, VERSION,
};
use thiserror::Error;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::{self, Message};

/// How long opening a connection (reaching the server and its WebSocket
/// handshake) may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the server may take to answer `hello`.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// The `client` this library announces in `hello`.
pub const CLIENT_NAME: &str = concat!("table-client ", env!("CARGO_PKG_VERSION"));

/// What went wrong with a connection.
#[derive(Debug, Error)]
pub enum ClientError {
    /// Nothing answered at the address.
    #[error(
        "cannot reach the table server at {target}: {reason} (is it running? `mille serve` or `cubes serve` starts one)"
    )]
    Unreachable {
        /// The address.
        target: String,
        /// The system's reason.
        reason: String,
    },
    /// Something answered, but not as a table server's WebSocket.
    #[error("the server at {target} did not open a table connection: {reason}")]
    Handshake {
        /// The address.
        target: String,
        /// What it answered.
        reason: String,
    },
    /// The server took too long.
    #[error("the table server at {target} did not answer within {seconds} s ({what})")]
    Timeout {
        /// The address.
        target: String,
        /// What was waited for.
        what: &'static str,
        /// How long.
        seconds: u64,
    },
    /// The server closed the connection.
    #[error("the table server closed the connection: {reason}")]
    Closed {
        /// The server's reason, or what is known of it.
        reason: String,
    },
    /// The connection broke.
    #[error("the connection to the table server broke: {reason}")]
    Lost {
        /// The system's reason.
        reason: String,
    },
    /// The server sent something that is not a message of the protocol.
    #[error("the table server sent something this client cannot read: {reason}")]
    BadMessage {
        /// What is wrong with it.
        reason: String,
    },
    /// The server refused what was asked (`hello` here).
    #[error("the table server refused: {}", .0.message)]
    Refused(ErrorBody),
    /// The server's certificate could not be trusted: it is not signed by
    /// an authority this client trusts, it is for another name, it has
    /// expired... Trying again would be refused the same way.
    #[error(
        "the table server at {target} cannot be trusted: {reason} (a server whose certificate comes from a private authority needs --ca FILE, that authority's certificate)"
    )]
    Certificate {
        /// The address.
        target: String,
        /// What is wrong with the certificate.
        reason: String,
    },
    /// The TLS handshake failed for another reason than the certificate
    /// (the server does not speak TLS there, or no common version).
    #[error(
        "the TLS handshake with {target} failed: {reason} (is it a TLS address? a plain server is written HOST:PORT)"
    )]
    Tls {
        /// The address.
        target: String,
        /// What went wrong.
        reason: String,
    },
    /// The certificate authority given (`--ca`) cannot be used.
    #[error("cannot use the certificate authority in {path}: {reason}")]
    Authority {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A Unix socket was asked for where there are none.
    #[error("Unix sockets are not available on this system; give HOST:PORT")]
    NoUnixSockets,
}

impl ClientError {
    fn lost(error: tungstenite::Error) -> ClientError {
        match error {
            tungstenite::Error::ConnectionClosed | tungstenite::Error::AlreadyClosed => {
                ClientError::Closed {
                    reason: "the connection is closed".into(),
                }
            }
            other => ClientError::Lost {
                reason: crate::printable(&other.to_string()).into_owned(),
            },
        }
    }
}

/// What the server said in `welcome`: who this connection is and what it
/// must keep to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Welcome {
    /// The protocol version the server speaks.
    pub version: u32,
    /// The server's program and version.
    pub server: String,
    /// The name this connection plays under.
    pub name: String,
    /// The secret that owns the name: keep it for the next `hello`.
    pub token: String,
    /// The limits the connection must keep.
    pub limits: Limits,
    /// The seats this player holds at unfinished tables.
    pub seats: Vec<SeatRef>,
    /// The games the server hosts.
    pub games: Vec<GameInfo>,
    /// Whether the name is a bot's.
    pub bot: bool,
}

impl From<Welcome> for ServerMessage {
    fn from(w: Welcome) -> ServerMessage {
        ServerMessage::Welcome {
            version: w.version,
            server: w.server,
            name: w.name,
            token: w.token,
            limits: w.limits,
            seats: w.seats,
            games: w.games,
            bot: w.bot,
        }
    }
}

/// The byte stream under the WebSocket: TCP or a Unix socket.
trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// An open connection to a table server.
pub struct Connection {
    ws: WebSocketStream<Box<dyn Io>>,
    target: Target,
    /// Whether the connection ends where its target says (see
    /// [`Connection::reaches_its_target`]).
    reached: bool,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl Connection {
    /// Connects to the server at `target` and opens its WebSocket (within
    /// [`CONNECT_TIMEOUT`]). Nothing is sent yet: `hello` comes next.
    pub async fn open(target: &Target) -> Result<Connection, ClientError> {
        match tokio::time::timeout(CONNECT_TIMEOUT, Self::open_now(target)).await {
            Ok(opened) => opened,
            Err(_) => Err(ClientError::Timeout {
                target: target.to_string(),
                what: "opening the connection",
                seconds: CONNECT_TIMEOUT.as_secs(),
            }),
        }
    }

    async fn open_now(target: &Target) -> Result<Connection, ClientError> {
        let unreachable = |e: std::io::Error| ClientError::Unreachable {
            target: target.to_string(),
            reason: e.to_string(),
        };
        let mut reached = true;
        let stream: Box<dyn Io> = match target {
            Target::Tcp { host, port } => {
                let tcp = tokio::net::TcpStream::connect((host.as_str(), *port))
                    .await
                    .map_err(unreachable)?;
                if target.is_this_machine() {
                    reached = tcp.peer_addr().is_ok_and(|a| a.ip().is_loopback());
                }
                // Moves are small messages that should leave at once.
                let _ = tcp.set_nodelay(true);
                Box::new(tcp)
            }
            Target::Tls { host, port, ca } => {
                // The authority is read before anything is sent: a file
                // that cannot be used is the player's to fix.
                let connector = crate::tls::connector(ca.as_deref())?;
                let name = crate::tls::server_name(host).map_err(|reason| ClientError::Tls {
                    target: target.to_string(),
                    reason,
                })?;
                let tcp = tokio::net::TcpStream::connect((host.as_str(), *port))
                    .await
                    .map_err(unreachable)?;
                if target.is_this_machine() {
                    reached = tcp.peer_addr().is_ok_and(|a| a.ip().is_loopback());
                }
                let _ = tcp.set_nodelay(true);
                let tls = connector
                    .connect(name, tcp)
                    .await
                    .map_err(|e| crate::tls::handshake_error(target, e))?;
                Box::new(tls)
            }
            #[cfg(unix)]
            Target::Unix(path) => Box::new(
                tokio::net::UnixStream::connect(path)
                    .await
                    .map_err(unreachable)?,
            ),
            #[cfg(not(unix))]
            Target::Unix(_) => return Err(ClientError::NoUnixSockets),
        };
        let (ws, _response) = tokio_tungstenite::client_async(target.url(), stream)
            .await
            .map_err(|e| ClientError::Handshake {
                target: target.to_string(),
                // What answered may have put anything in its status line.
                reason: crate::printable(&e.to_string()).into_owned(),
            })?;
        Ok(Connection {
            ws,
            target: target.clone(),
            reached,
        })
    }

    /// Whether the connection ends where its target says: a target naming
    /// this machine ([`Target::is_this_machine`]) must have reached a
    /// loopback address (a `localhost` resolved elsewhere has not). A
    /// token kept for the target is sent only then.
    pub fn reaches_its_target(&self) -> bool {
        self.reached
    }

    /// The server this connection goes to.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Sends a message.
    pub async fn send(&mut self, message: &ClientMessage) -> Result<(), ClientError> {
        self.send_raw(&message.to_json()).await
    }

    /// Sends any text as one message, protocol or not (tests, fuzzers).
    pub async fn send_raw(&mut self, text: &str) -> Result<(), ClientError> {
        self.ws
            .send(Message::text(text))
            .await
            .map_err(ClientError::lost)
    }

    /// Sends bytes as one binary message, which the protocol does not use
    /// (tests, fuzzers).
    pub async fn send_binary(&mut self, bytes: Vec<u8>) -> Result<(), ClientError> {
        self.ws
            .send(Message::binary(bytes))
            .await
            .map_err(ClientError::lost)
    }

    /// The next message from the server, every string in it made
    /// [`printable`](crate::printable) (no control character of a server
    /// reaches a terminal, whichever screen shows it). Cancel-safe: if the
    /// future is dropped before it is ready, no message is lost.
    pub async fn recv(&mut self) -> Result<ServerMessage, ClientError> {
        let text = self.recv_raw().await?;
        let bad = |e: serde_json::Error| ClientError::BadMessage {
            reason: format!("{e} in {}", shorten(&text)),
        };
        let mut value: serde_json::Value = serde_json::from_str(&text).map_err(bad)?;
        crate::printable::clean(&mut value);
        serde_json::from_value(value).map_err(bad)
    }

    /// The next text message from the server as it came. WebSocket pings
    /// and pongs are skipped (and answered); a close is
    /// [`ClientError::Closed`] with the server's reason; a binary message
    /// is [`ClientError::BadMessage`]. Cancel-safe like [`Connection::recv`].
    pub async fn recv_raw(&mut self) -> Result<String, ClientError> {
        loop {
            let frame = match self.ws.next().await {
                Some(Ok(frame)) => frame,
                Some(Err(e)) => return Err(ClientError::lost(e)),
                None => {
                    return Err(ClientError::Closed {
                        reason: "the connection ended".into(),
                    });
                }
            };
            match frame {
                Message::Text(text) => return Ok(text.as_str().to_owned()),
                Message::Binary(bytes) => {
                    return Err(ClientError::BadMessage {
                        reason: format!("a binary message of {} bytes", bytes.len()),
                    });
                }
                Message::Close(frame) => {
                    // Sends the close's answer, which tungstenite queued, so
                    // the server is not left waiting for it.
                    let _ = self.ws.flush().await;
                    let reason = match frame {
                        Some(f) if !f.reason.is_empty() => {
                            crate::printable(f.reason.as_str()).into_owned()
                        }
                        Some(f) => format!("no reason given (code {})", u16::from(f.code)),
                        None => "no reason given".into(),
                    };
                    return Err(ClientError::Closed { reason });
                }
                Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => {}
            }
        }
    }

    /// Says `hello` (protocol [`VERSION`], as [`CLIENT_NAME`]) and waits for
    /// `welcome` (within [`HELLO_TIMEOUT`]). A refusal (`name_taken`,
    /// `bad_token`, `version`...) is [`ClientError::Refused`]; after
    /// `name_taken` and `bad_token` the connection stays open for another
    /// `hello`. Anything else that comes first is skipped.
    pub async fn hello(
        &mut self,
        name: Option<&str>,
        token: Option<&str>,
    ) -> Result<Welcome, ClientError> {
        self.hello_as(name, token, None).await
    }

    /// As [`Connection::hello`], for a bot when `bot` is given: the name
    /// is then a bot's, with its owner and description.
    pub async fn hello_as(
        &mut self,
        name: Option<&str>,
        token: Option<&str>,
        bot: Option<BotInfo>,
    ) -> Result<Welcome, ClientError> {
        self.send(&ClientMessage::Hello {
            version: VERSION,
            name: name.map(str::to_owned),
            token: token.map(str::to_owned),
            client: Some(CLIENT_NAME.into()),
            bot,
        })
        .await?;
        let answer = async {
            loop {
                match self.recv().await? {
                    ServerMessage::Welcome {
                        version,
                        server,
                        name,
                        token,
                        limits,
                        seats,
                        games,
                        bot,
                    } => {
                        return Ok(Welcome {
                            version,
                            server,
                            name,
                            token,
                            limits,
                            seats,
                            games,
                            bot,
                        });
                    }
                    ServerMessage::Error(body) => return Err(ClientError::Refused(body)),
                    _ => {}
                }
            }
        };
        match tokio::time::timeout(HELLO_TIMEOUT, answer).await {
            Ok(answered) => answered,
            Err(_) => Err(ClientError::Timeout {
                target: self.target.to_string(),
                what: "the answer to hello",
                seconds: HELLO_TIMEOUT.as_secs(),
            }),
        }
    }

    /// Closes the connection politely (a WebSocket close, then waits
    /// briefly for the server's).
    pub async fn close(mut self) {
        let _ = tokio::time::timeout(Duration::from_secs(1), self.ws.close(None)).await;
    }
}

/// A message's start, for an error sentence (printable: it is shown).
fn shorten(text: &str) -> String {
    const MAX: usize = 120;
    let text = crate::printable(text);
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.into_owned(),
    }
}
