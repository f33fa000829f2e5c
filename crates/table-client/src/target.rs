//! Where a table server is: its Unix socket on this machine, a host and
//! port, or a host and port speaking TLS (`wss://`, `https://`), read from
//! what a person types (`--connect`).

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
    /// A server reached over TCP and TLS (`wss://` or `https://`): its
    /// certificate is checked for `host`, against the system's roots or
    /// the authority in `ca`.
    Tls {
        /// A host name, an IPv4 address or an IPv6 address (without
        /// brackets): the name the certificate must carry.
        host: String,
        /// The port.
        port: u16,
        /// A private certificate authority (a PEM file) to trust instead
        /// of the system's roots (`--ca`); not part of the server's
        /// identity ([`Target::key`]).
        ca: Option<PathBuf>,
    },
}

/// The port of a `wss://` or `https://` address that gives none, as for
/// any web address (a server behind a proxy, or `mille serve --tls-cert`
/// on `--listen 0.0.0.0:443`).
pub const TLS_DEFAULT_PORT: u16 = 443;

/// Why a text is not a table server's address.
#[derive(Debug, Error)]
pub enum TargetError {
    /// The local server's socket has no place (no home directory).
    #[error("cannot tell where the local table server's socket is: {0}")]
    NoSocketPath(#[source] game_store::StoreError),
    /// The host part is not a host name or address.
    #[error(
        "{given:?} is not a table server's address: {why} (write HOST, HOST:PORT, [IPv6]:PORT, wss://HOST[:PORT], a socket's path, or local)"
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
    /// What to say when no table server answers here: where, why, and the
    /// two ways on (start one with `PROGRAM serve`, or give the address of
    /// a running one), for the terminal client `program`.
    pub fn unreachable(&self, reason: &str, program: &str) -> String {
        let place = match self {
            Target::Unix(path) => format!(
                "no table server runs on this machine (nothing answers at its socket {}: {reason})",
                path.display()
            ),
            Target::Tcp { .. } | Target::Tls { .. } => {
                format!("no table server answers at {self} ({reason})")
            }
        };
        format!(
            "{place}.\nStart one with `{program} serve`, or give the address of a running one: \
             {program} --connect HOST[:PORT]"
        )
    }

    /// Reads an address as a person writes it: empty or `local` for the
    /// local server's Unix socket ([`game_store::socket_path`]), a path
    /// containing `/` for that socket, `HOST` for `HOST` on the default port
    /// ([`DEFAULT_PORT`]), `HOST:PORT`, or `[IPv6]:PORT` (a bare IPv6
    /// address is taken on the default port). The page's address as a
    /// browser shows it is read too: `http://HOST:PORT/` or
    /// `ws://HOST:PORT/ws` (port 80 if none is given, as for any web
    /// address), `https://HOST:PORT/` or `wss://HOST:PORT/ws` over TLS
    /// (port 443 if none is given: [`TLS_DEFAULT_PORT`]), and
    /// `HOST:PORT/`. Spaces around it are ignored.
    pub fn parse(text: &str) -> Result<Target, TargetError> {
        Self::parse_with(text, Self::local)
    }

    /// [`Target::parse`] with the local socket found by `local` (so tests
    /// never create the user's directories).
    pub(crate) fn parse_with(
        text: &str,
        local: impl FnOnce() -> Result<Target, TargetError>,
    ) -> Result<Target, TargetError> {
        let s = text.trim();
        if s.is_empty() || s == "local" {
            return local();
        }
        let bad = |why: &str| TargetError::Bad {
            given: text.to_string(),
            why: why.to_string(),
        };
        if let Some((scheme, rest)) = s.split_once("://") {
            let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
            return match scheme.to_ascii_lowercase().as_str() {
                "ws" | "http" => {
                    let host_port = if authority.ends_with(']') || !authority.contains(':') {
                        format!("{authority}:80")
                    } else {
                        authority.to_string()
                    };
                    Self::parse_with(&host_port, local).map_err(|_| bad("not a web address"))
                }
                "wss" | "https" => {
                    let host_port = if authority.ends_with(']') || !authority.contains(':') {
                        format!("{authority}:{TLS_DEFAULT_PORT}")
                    } else {
                        authority.to_string()
                    };
                    match Self::parse_with(&host_port, local) {
                        Ok(Target::Tcp { host, port }) => Ok(Target::Tls {
                            host,
                            port,
                            ca: None,
                        }),
                        _ => Err(bad("not a web address")),
                    }
                }
                _ => Err(bad(
                    "only ws://, wss://, http:// and https:// addresses are read",
                )),
            };
        }
        // `HOST:PORT/`, as a browser's address bar may leave it; a socket
        // is not a directory, so this is no socket's path.
        let s = match s.strip_suffix('/') {
            Some(bare) if bare.contains(':') && !bare.contains('/') => bare.trim_end_matches('/'),
            _ => s,
        };
        if s.contains('/') {
            return Ok(Target::Unix(PathBuf::from(s)));
        }
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

    /// The same server, its certificate checked against the authority in
    /// the PEM file `ca` instead of the system's roots. Only a TLS address
    /// has a certificate: any other is refused (a `--ca` given for a plain
    /// address would protect nothing, and saying nothing would let the
    /// player believe it does).
    pub fn with_ca(self, ca: PathBuf) -> Result<Target, TargetError> {
        match self {
            Target::Tls { host, port, .. } => Ok(Target::Tls {
                host,
                port,
                ca: Some(ca),
            }),
            other => Err(TargetError::Bad {
                given: other.to_string(),
                why: "a certificate authority (--ca) is only for a TLS address (wss://HOST[:PORT] or https://HOST[:PORT])".into(),
            }),
        }
    }

    /// [`Target::parse`], then [`Target::with_ca`] when an authority is
    /// given (`--connect` and `--ca` on a command line).
    pub fn parse_trusting(text: &str, ca: Option<&std::path::Path>) -> Result<Target, TargetError> {
        let target = Target::parse(text)?;
        match ca {
            Some(ca) => target.with_ca(ca.to_path_buf()),
            None => Ok(target),
        }
    }

    /// Whether the connection is carried over TLS.
    pub fn is_tls(&self) -> bool {
        matches!(self, Target::Tls { .. })
    }

    /// The local server's Unix socket.
    pub fn local() -> Result<Target, TargetError> {
        game_store::socket_path()
            .map(Target::Unix)
            .map_err(TargetError::NoSocketPath)
    }

    /// A stable name of this server, for keeping its token: `unix:PATH`,
    /// `tcp:HOST:PORT` or `tls:HOST:PORT`, the same for every spelling of
    /// one address: host
    /// names in lower case and without a final dot (as DNS reads them),
    /// and this machine's loopback spellings (`localhost`, `127.0.0.1`,
    /// `::1`) as `localhost` on their port. A server listening on both
    /// 127.0.0.1 and ::1 is one server, and so is what `localhost` reaches;
    /// a token kept for this machine is only sent to a connection that
    /// did reach this machine ([`Target::is_this_machine`]).
    ///
    /// A TLS server is another server than a plain one at the same host
    /// and port (`tls:` against `tcp:`): a token given over TLS is never
    /// sent in clear, nor one given in clear trusted over TLS. The
    /// authority given with [`Target::with_ca`] is not part of the key.
    pub fn key(&self) -> String {
        let host_port = |host: &str, port: &u16| {
            let host = host.trim_end_matches('.').to_ascii_lowercase();
            if is_loopback_name(&host) {
                format!("localhost:{port}")
            } else if host.contains(':') {
                format!("[{host}]:{port}")
            } else {
                format!("{host}:{port}")
            }
        };
        match self {
            Target::Unix(path) => format!("unix:{}", path.display()),
            Target::Tcp { host, port } => format!("tcp:{}", host_port(host, port)),
            Target::Tls { host, port, .. } => format!("tls:{}", host_port(host, port)),
        }
    }

    /// Whether the address names this machine over TCP (`localhost`,
    /// `127.0.0.1`, `::1`): a connection there must end on a loopback
    /// address before a token kept for it is sent (a `localhost` that the
    /// system resolves elsewhere is not this machine).
    pub fn is_this_machine(&self) -> bool {
        match self {
            Target::Unix(_) => false,
            Target::Tcp { host, .. } | Target::Tls { host, .. } => {
                is_loopback_name(&host.trim_end_matches('.').to_ascii_lowercase())
            }
        }
    }

    /// The WebSocket URL to ask for: `ws://HOST:PORT/ws`,
    /// `wss://HOST:PORT/ws`, or `ws://localhost/ws` over a Unix socket (the
    /// host is not looked at there, but a request needs one).
    pub fn url(&self) -> String {
        match self {
            Target::Unix(_) => format!("ws://localhost{WS_PATH}"),
            Target::Tcp { .. } => format!("ws://{self}{WS_PATH}"),
            // Its display starts with `wss://`.
            Target::Tls { .. } => format!("{self}{WS_PATH}"),
        }
    }
}

impl fmt::Display for Target {
    /// The address as [`Target::parse`] reads it back: the socket's path,
    /// `HOST:PORT`, `[IPv6]:PORT`, or `wss://` and one of those over TLS.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Unix(path) => write!(f, "{}", path.display()),
            Target::Tcp { host, port } if host.contains(':') => write!(f, "[{host}]:{port}"),
            Target::Tcp { host, port } => write!(f, "{host}:{port}"),
            Target::Tls { host, port, .. } if host.contains(':') => {
                write!(f, "wss://[{host}]:{port}")
            }
            Target::Tls { host, port, .. } => write!(f, "wss://{host}:{port}"),
        }
    }
}

impl std::str::FromStr for Target {
    type Err = TargetError;

    fn from_str(s: &str) -> Result<Target, TargetError> {
        Target::parse(s)
    }
}

/// `localhost` or the usual loopback address of IPv4 or IPv6 (the other
/// addresses of 127.0.0.0/8 may be other servers' own).
fn is_loopback_name(host: &str) -> bool {
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip == std::net::Ipv4Addr::LOCALHOST || ip == Ipv6Addr::LOCALHOST)
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
        assert_eq!(v6.key(), "tcp:localhost:9000");
        assert_eq!(tcp("Example.ORG", 1).key(), "tcp:example.org:1");
        assert_eq!(tcp("2001:db8::1", 1).key(), "tcp:[2001:db8::1]:1");
        let unix = Target::Unix("/run/t.sock".into());
        assert_eq!(unix.to_string(), "/run/t.sock");
        assert_eq!(unix.key(), "unix:/run/t.sock");
        assert_eq!(unix.url(), "ws://localhost/ws");
    }

    #[test]
    fn every_spelling_of_one_address_has_one_key() {
        let key = |text: &str| Target::parse_with(text, here).expect(text).key();
        let this_machine = "tcp:localhost:8780";
        for text in [
            "localhost",
            "LOCALHOST:8780",
            "localhost.:8780",
            "127.0.0.1",
            "127.0.0.1:8780",
            "[::1]:8780",
            "::1",
            "localhost:8780/",
            "http://127.0.0.1:8780/",
            "ws://localhost:8780/ws",
            "WS://[::1]:8780",
        ] {
            assert_eq!(key(text), this_machine, "{text}");
        }
        assert_eq!(key("http://localhost/"), "tcp:localhost:80");
        assert_eq!(key("Games.Example.org."), "tcp:games.example.org:8780");
        assert_eq!(key("games.example.org:8780/"), "tcp:games.example.org:8780");
        // Other servers keep other keys: another port, another loopback
        // address, another host.
        for other in ["localhost:8781", "127.0.0.2:8780", "example.org:8780"] {
            assert_ne!(key(other), this_machine, "{other}");
        }
        assert!(
            Target::parse_with("localhost:1", here)
                .expect("tcp")
                .is_this_machine()
        );
        assert!(
            !Target::parse_with("example.org", here)
                .expect("tcp")
                .is_this_machine()
        );
        assert!(!here().expect("unix").is_this_machine());
        // A path stays a path.
        assert_eq!(
            Target::parse_with("./run/t.sock", here).expect("path"),
            Target::Unix("./run/t.sock".into())
        );
    }

    fn tls(host: &str, port: u16) -> Target {
        Target::Tls {
            host: host.into(),
            port,
            ca: None,
        }
    }

    #[test]
    fn tls_addresses_are_read_and_kept_apart() {
        for (text, want) in [
            ("https://example.org/", tls("example.org", 443)),
            ("wss://example.org:8780/ws", tls("example.org", 8780)),
            ("WSS://[::1]:9/ws", tls("::1", 9)),
            ("https://[2001:db8::1]", tls("2001:db8::1", 443)),
        ] {
            let target = Target::parse_with(text, here).expect(text);
            assert_eq!(target, want, "{text}");
            assert!(target.is_tls());
            // Its display reads back as itself.
            let again = Target::parse_with(&target.to_string(), here).expect("display");
            assert_eq!(again, target);
        }
        let t = tls("Example.ORG.", 443);
        assert_eq!(t.to_string(), "wss://Example.ORG.:443");
        assert_eq!(t.url(), "wss://Example.ORG.:443/ws");
        assert_eq!(t.key(), "tls:example.org:443");
        assert_eq!(tls("::1", 9).url(), "wss://[::1]:9/ws");
        // A TLS server and a plain one at one host and port are two
        // servers for the tokens: a token given over TLS is never sent in
        // clear.
        let key = |text: &str| Target::parse_with(text, here).expect(text).key();
        assert_ne!(key("wss://localhost:8780"), key("localhost:8780"));
        assert_ne!(key("https://h.example:1"), key("http://h.example:1"));
        assert_eq!(
            key("wss://127.0.0.1:8780/ws"),
            key("https://localhost:8780/")
        );
        // The authority is not part of the server's identity.
        let with_ca = tls("h.example", 1)
            .with_ca("/tmp/ca.pem".into())
            .expect("a TLS address");
        assert_eq!(with_ca.key(), tls("h.example", 1).key());
        let e = tcp("h.example", 1)
            .with_ca("/tmp/ca.pem".into())
            .expect_err("plain")
            .to_string();
        assert!(e.contains("wss://"), "{e}");
        let e = Target::parse_with("ftp://x", here)
            .expect_err("ftp")
            .to_string();
        assert!(e.contains("wss://"), "{e}");
        assert_eq!(
            Target::parse_with("http://[::1]:9/", here).expect("v6"),
            tcp("::1", 9)
        );
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
