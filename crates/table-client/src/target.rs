//! Where a table server is: its Unix socket on this machine, or a host and
//! port, read from what a person types (`--connect`).

use std::fmt;
use std::net::Ipv6Addr;
use std::path::PathBuf;
use table_protocol::{DEFAULT_PORT, WS_PATH};
use thiserror::Error;

/// A table server's address.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// The server's Unix socket (a server on this machine).
    Unix(PathBuf),
    /// A server reached over TCP.
    Tcp {
        /// A host name, an IPv4 address or an IPv6 address (without
        /// brackets).
        host: String,
        /// The port.
        port: u16,
    },
}

/// Why a text is not a table server's address.
#[derive(Debug, Error)]
pub enum TargetError {
    /// The local server's socket has no place (no home directory).
    #[error("cannot tell where the local table server's socket is: {0}")]
    NoSocketPath(#[source] game_store::StoreError),
    /// The host part is not a host name or address.
    #[error(
        "{given:?} is not a table server's address: {why} (write HOST, HOST:PORT, [IPv6]:PORT, a socket's path, or local)"
    )]
    Bad {
        /// What was given.
        given: String,
        /// What is wrong with it.
        why: String,
    },
}

/// Longest host name DNS allows.
const MAX_HOST: usize = 253;

impl Target {
    /// Reads an address as a person writes it: empty or `local` for the
    /// local server's Unix socket ([`game_store::socket_path`]), a path
    /// containing `/` for that socket, `HOST` for `HOST` on the default port
    /// ([`DEFAULT_PORT`]), `HOST:PORT`, or `[IPv6]:PORT` (a bare IPv6
    /// address is taken on the default port). Spaces around it are ignored.
    pub fn parse(text: &str) -> Result<Target, TargetError> {
        Self::parse_with(text, Self::local)
    }

    /// [`Target::parse`] with the local socket found by `local` (so tests
    /// never create the user's directories).
    fn parse_with(
        text: &str,
        local: impl FnOnce() -> Result<Target, TargetError>,
    ) -> Result<Target, TargetError> {
        let s = text.trim();
        if s.is_empty() || s == "local" {
            return local();
        }
        if s.contains('/') {
            return Ok(Target::Unix(PathBuf::from(s)));
        }
        let bad = |why: &str| TargetError::Bad {
            given: text.to_string(),
            why: why.to_string(),
        };
        if let Some(rest) = s.strip_prefix('[') {
            let (inside, after) = rest
                .split_once(']')
                .ok_or_else(|| bad("the IPv6 address has no closing bracket"))?;
            let ip: Ipv6Addr = inside
                .parse()
                .map_err(|_| bad("the part in brackets is not an IPv6 address"))?;
            let port = match after {
                "" => DEFAULT_PORT,
                _ => match after.strip_prefix(':') {
                    Some(p) => parse_port(p).map_err(|why| bad(&why))?,
                    None => return Err(bad("only :PORT may follow the brackets")),
                },
            };
            return Ok(Target::Tcp {
                host: ip.to_string(),
                port,
            });
        }
        if s.matches(':').count() > 1 {
            // Only an IPv6 address has several colons; without brackets it
            // cannot carry a port.
            let ip: Ipv6Addr = s
                .parse()
                .map_err(|_| bad("an IPv6 address with a port is written [ADDRESS]:PORT"))?;
            return Ok(Target::Tcp {
                host: ip.to_string(),
                port: DEFAULT_PORT,
            });
        }
        let (host, port) = match s.split_once(':') {
            Some((host, port)) => (host, parse_port(port).map_err(|why| bad(&why))?),
            None => (s, DEFAULT_PORT),
        };
        check_host(host).map_err(|why| bad(&why))?;
        Ok(Target::Tcp {
            host: host.to_string(),
            port,
        })
    }

    /// The local server's Unix socket.
    pub fn local() -> Result<Target, TargetError> {
        game_store::socket_path()
            .map(Target::Unix)
            .map_err(TargetError::NoSocketPath)
    }

    /// A stable name of this server, for keeping its token: `unix:PATH` or
    /// `tcp:HOST:PORT` (host names in lower case, as DNS ignores case).
    pub fn key(&self) -> String {
        match self {
            Target::Unix(path) => format!("unix:{}", path.display()),
            Target::Tcp { .. } => format!("tcp:{}", self.to_string().to_ascii_lowercase()),
        }
    }

    /// The WebSocket URL to ask for: `ws://HOST:PORT/ws`, or
    /// `ws://localhost/ws` over a Unix socket (the host is not looked at
    /// there, but a request needs one).
    pub fn url(&self) -> String {
        match self {
            Target::Unix(_) => format!("ws://localhost{WS_PATH}"),
            Target::Tcp { .. } => format!("ws://{self}{WS_PATH}"),
        }
    }
}

impl fmt::Display for Target {
    /// The address as [`Target::parse`] reads it back: the socket's path,
    /// `HOST:PORT` or `[IPv6]:PORT`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Unix(path) => write!(f, "{}", path.display()),
            Target::Tcp { host, port } if host.contains(':') => write!(f, "[{host}]:{port}"),
            Target::Tcp { host, port } => write!(f, "{host}:{port}"),
        }
    }
}

impl std::str::FromStr for Target {
    type Err = TargetError;

    fn from_str(s: &str) -> Result<Target, TargetError> {
        Target::parse(s)
    }
}

fn parse_port(text: &str) -> Result<u16, String> {
    match text.parse::<u16>() {
        Ok(0) => Err("port 0 cannot be connected to".into()),
        Ok(port) => Ok(port),
        Err(_) => Err(format!("the port {text:?} is not a number from 1 to 65535")),
    }
}

fn check_host(host: &str) -> Result<(), String> {
    if host.is_empty() {
        return Err("the host is missing".into());
    }
    if host.len() > MAX_HOST {
        return Err(format!("a host name has at most {MAX_HOST} characters"));
    }
    if let Some(c) = host
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_')))
    {
        return Err(format!("a host name cannot contain {c:?}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tcp(host: &str, port: u16) -> Target {
        Target::Tcp {
            host: host.into(),
            port,
        }
    }

    #[test]
    fn hosts_and_ports() {
        assert_eq!(
            Target::parse("example.org").expect("host"),
            tcp("example.org", DEFAULT_PORT)
        );
        assert_eq!(
            Target::parse(" 10.0.0.2:9000 ").expect("host:port"),
            tcp("10.0.0.2", 9000)
        );
        assert_eq!(Target::parse("[::1]:9000").expect("v6"), tcp("::1", 9000));
        assert_eq!(
            Target::parse("[::1]").expect("v6"),
            tcp("::1", DEFAULT_PORT)
        );
        assert_eq!(
            Target::parse("::1").expect("bare v6"),
            tcp("::1", DEFAULT_PORT)
        );
        assert_eq!(
            Target::parse("./run/t.sock").expect("path"),
            Target::Unix("./run/t.sock".into())
        );
    }

    #[test]
    fn local_is_the_shared_socket() {
        for text in ["", " ", "local", " local "] {
            assert_eq!(
                Target::parse_with(text, here).expect(text),
                Target::Unix("/tmp/here.sock".into())
            );
        }
        let nowhere = || Err(TargetError::NoSocketPath(game_store::StoreError::NoHome));
        let e = Target::parse_with("local", nowhere).expect_err("no home");
        assert!(e.to_string().contains("socket"), "{e}");
        // Only the empty text and `local` mean the local socket.
        assert!(matches!(
            Target::parse_with("localhost", nowhere),
            Ok(Target::Tcp { .. })
        ));
    }

    #[test]
    fn refusals_say_why() {
        for (text, why) in [
            ("host:", "port"),
            ("host:0", "port 0"),
            ("host:70000", "65535"),
            ("host:x", "port"),
            (":80", "host is missing"),
            ("a b", "' '"),
            ("[::1", "closing bracket"),
            ("[nope]:1", "IPv6"),
            ("[::1]x", ":PORT"),
            ("::1:80:zz", "[ADDRESS]:PORT"),
        ] {
            let e = Target::parse(text).expect_err(text).to_string();
            assert!(e.contains(why), "{text}: {e}");
            assert!(e.contains("HOST:PORT"), "{text}: {e}");
        }
    }

    #[test]
    fn display_key_and_url() {
        let v6 = tcp("::1", 9000);
        assert_eq!(v6.to_string(), "[::1]:9000");
        assert_eq!(v6.url(), "ws://[::1]:9000/ws");
        assert_eq!(v6.key(), "tcp:[::1]:9000");
        assert_eq!(tcp("Example.ORG", 1).key(), "tcp:example.org:1");
        let unix = Target::Unix("/run/t.sock".into());
        assert_eq!(unix.to_string(), "/run/t.sock");
        assert_eq!(unix.key(), "unix:/run/t.sock");
        assert_eq!(unix.url(), "ws://localhost/ws");
    }

    /// A local socket that is not the user's.
    fn here() -> Result<Target, TargetError> {
        Ok(Target::Unix("/tmp/here.sock".into()))
    }

    proptest! {
        #[test]
        fn any_text_is_read_or_refused_without_panic(text in ".{0,80}") {
            let _ = Target::parse_with(&text, here);
        }

        #[test]
        fn address_like_text_reads_back_as_displayed(
            text in "(\\[[0-9a-f:]{0,12}\\]|[a-zA-Z0-9.:_-]{0,20})(:[0-9]{0,6})?"
        ) {
            if let Ok(target) = Target::parse_with(&text, here) {
                let again = Target::parse_with(&target.to_string(), here).expect("its own display");
                prop_assert_eq!(&again, &target);
                prop_assert_eq!(again.key(), target.key());
            }
        }
    }
}
