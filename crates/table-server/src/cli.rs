//! `mille serve` and `cubes serve`: the server's command-line options, the
//! same under both programs.

use crate::{Config, ServerError};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Host tables of mille and cubes for people at other terminals.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// The address to listen on for WebSocket clients (default: loopback
    /// only; `0.0.0.0:8780` to let other machines in).
    #[arg(long, default_value_t = SocketAddr::from(([127, 0, 0, 1], table_protocol::DEFAULT_PORT)))]
    pub listen: SocketAddr,
    /// The Unix socket for local players (default: in the user's runtime
    /// directory).
    #[arg(long)]
    pub socket: Option<PathBuf>,
    /// Do not listen on a Unix socket.
    #[arg(long, conflicts_with = "socket")]
    pub no_socket: bool,
    /// The data directory: the database and score files (default: the
    /// user's data directory).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Seconds a person may be away before a computer plays the seat.
    #[arg(long, default_value_t = 60)]
    pub away: u64,
    /// Seconds the table waits between hands for people to be ready.
    #[arg(long, default_value_t = 30)]
    pub hand_pause: u64,
    /// Seconds a game may stay paused with no person at it before it is
    /// closed as abandoned (no result for anyone).
    #[arg(long, default_value_t = 24 * 3600)]
    pub abandon_after: u64,
    /// Milliseconds before each computer move while somebody watches.
    #[arg(long, default_value_t = 500)]
    pub bot_delay: u64,
    /// Milliseconds of pause after every hazard a hidden coup-fourré chance
    /// may follow, and the time a person has to call it (0: no pause, and
    /// no limit, but moves then wait for a pending chance, which tells it).
    #[arg(long, default_value_t = 2000)]
    pub coup_fourre_window: u64,
    /// Seconds of silence after which a connection is closed.
    #[arg(long, default_value_t = 120)]
    pub idle: u64,
    /// Offer a bot program (speaking the Mille Bornes Bot Protocol) as a
    /// mille computer player named NAME: `--bot 'mybot=python3 bot.py'`
    /// (repeat for more).
    #[arg(long = "bot", value_name = "NAME=COMMAND", value_parser = program)]
    pub bots: Vec<(String, String)>,
    /// Messages a second a connection may send on average.
    #[arg(long, default_value_t = 20)]
    pub rate: u32,
    /// Serve the web page from this directory instead of the copy built
    /// into the program (for working on the page).
    #[arg(long, value_name = "DIR")]
    pub web: Option<PathBuf>,
    /// The database: `sqlite:PATH` (default: server.db in the data
    /// directory) or `postgres://USER@HOST:PORT/DATABASE`, which several
    /// instances may share.
    #[arg(long, value_name = "URL")]
    pub database: Option<String>,
    /// Seconds a table's lease lasts without renewal (shared database):
    /// how soon another instance takes over the tables of one that died.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(2..=600))]
    pub lease: u64,
    /// Where the other instances reach this one (`ws://HOST:PORT`), when
    /// that is not the address it listens on (default: --listen, with
    /// 0.0.0.0 read as 127.0.0.1).
    #[arg(long, value_name = "URL")]
    pub advertise: Option<String>,
    /// Seconds a client has to send a request's headers (a connection that
    /// stays silent longer is closed).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=300))]
    pub header_timeout: u64,
    /// The most connections from one client address (IPv6: from one /64).
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u64).range(1..))]
    pub connections_per_address: u64,
    /// The most connections in all (default: what the open-file limit,
    /// raised to its hard limit at start, leaves room for).
    #[arg(long, value_name = "N")]
    pub max_connections: Option<usize>,
    /// A reverse proxy whose X-Forwarded-For or Forwarded header names the
    /// client (repeat for more): its connections are then counted and
    /// logged by the client they carry.
    #[arg(long = "trusted-proxy", value_name = "IP")]
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// An address held to no per-address cap, only to the total (a load
    /// generator, a monitoring host; repeat for more).
    #[arg(long = "uncapped-address", value_name = "IP")]
    pub uncapped: Vec<std::net::IpAddr>,
    /// The address people open the page at, `https://HOST[:PORT]`, when it
    /// is a name (a page at an IP address or localhost is always the
    /// server's own; one at any other name is refused).
    #[arg(long, value_name = "URL", value_parser = crate::public_origin)]
    pub public_url: Option<String>,
    /// Serve /metrics at this address (default: on the game's address, to
    /// this machine only).
    #[arg(long, value_name = "ADDR")]
    pub metrics_listen: Option<SocketAddr>,
    /// The most names one client address may register in an hour.
    #[arg(long, default_value_t = 20)]
    pub registrations_per_hour: usize,
    /// Serve HTTPS and WSS on --listen with this certificate chain (PEM,
    /// the server's certificate first); needs --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// A file holding PostgreSQL's password, for a --database URL without
    /// one (else the PGPASSWORD environment variable is read): a password
    /// in the URL is on every local user's process list.
    #[arg(long, value_name = "FILE")]
    pub database_password_file: Option<PathBuf>,
    /// A certificate authority (PEM) PostgreSQL's certificate is checked
    /// against, besides the system's (TLS follows the URL's sslmode).
    #[arg(long, value_name = "FILE")]
    pub database_ca: Option<PathBuf>,
    /// A file holding the secret the instances sharing a database prove
    /// their links with (the same file on every instance).
    #[arg(long, value_name = "FILE")]
    pub link_secret_file: Option<PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Let a name go when nobody signed in with it for this many days and
    /// it has no finished or unfinished game (0: never). A name with a game
    /// is kept: its results are history.
    #[arg(long, default_value_t = 180)]
    pub forget_names_days: u64,
    /// Close a table whose game has not started this many hours after it
    /// opened; such tables are then removed.
    #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u64).range(1..))]
    pub close_unstarted_hours: u64,
    /// The most after-game reviews made at once, their searches on that
    /// many threads of their own beside the tables (0: none made here).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(0..=64))]
    pub reviews_at_once: u64,
    /// The most reviews waiting their turn; more are answered 503.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub review_queue: u64,
    /// The search iterations a mille review spends on each decision (the
    /// default: twice the `normal` player's; fewer is quicker and rougher).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub review_iterations: Option<u32>,
    /// Run an arena of Mille Bornes at these rules (`bsd`, `classic` or
    /// `milebones`, two players): the bots connected with `arena` in their
    /// hello are paired round after round, every pair playing two rated
    /// games on one deal with the seats swapped; standings at /arena and
    /// /api/arena.
    #[arg(long, value_name = "RULES", value_parser = arena_rules)]
    pub arena: Option<String>,
    /// Rounds the arena plays before it stops (0: rounds without end).
    #[arg(long, value_name = "N", default_value_t = 0, requires = "arena")]
    pub arena_rounds: u32,
    /// Deal every arena game afresh instead of each pair's two games on
    /// one deal with the seats swapped: luck no longer cancels, but a bot
    /// cannot carry what it saw of a deal into the pair's other game (for
    /// an arena whose bots are not trusted to forget).
    #[arg(long, requires = "arena")]
    pub arena_fresh_deals: bool,
    /// Seconds a bot may take over one decision (its turn, a coup-fourré
    /// chance, being ready for the next hand); past it, an arena bot
    /// loses the game, and elsewhere the stand-in plays its seat.
    #[arg(long, value_name = "S", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub bot_decision_seconds: u64,
}

/// Reads `--arena`: a Mille Bornes ruleset the arena plays.
fn arena_rules(text: &str) -> Result<String, String> {
    match text {
        "bsd" | "classic" | "milebones" => Ok(text.to_string()),
        _ => Err(format!(
            "an arena plays Mille Bornes at bsd, classic or milebones rules, not {text:?}"
        )),
    }
}

impl ServeArgs {
    /// The server's setup from these options.
    pub fn config(&self) -> Result<Config, ServerError> {
        let data = match &self.data {
            Some(d) => d.clone(),
            None => game_store::data_dir("table-server").map_err(|e| ServerError::DataDir {
                path: PathBuf::from("table-server"),
                source: std::io::Error::other(e.to_string()),
            })?,
        };
        let mut config = Config::new(data);
        config.listen = self.listen;
        config.socket = if self.no_socket {
            None
        } else {
            match &self.socket {
                Some(s) => Some(s.clone()),
                None => Some(game_store::socket_path().map_err(|e| ServerError::DataDir {
                    path: PathBuf::from("socket"),
                    source: std::io::Error::other(e.to_string()),
                })?),
            }
        };
        config.away = Duration::from_secs(self.away);
        config.limits.away_seconds = self.away;
        config.hand_pause = Duration::from_secs(self.hand_pause);
        config.abandon_after = Duration::from_secs(self.abandon_after.max(1));
        config.bot_delay = Duration::from_millis(self.bot_delay);
        config.coup_fourre_window = Duration::from_millis(self.coup_fourre_window);
        config.limits.idle_seconds = self.idle.max(1);
        config.limits.messages_per_second = self.rate.max(1);
        config.limits.burst = self.rate.max(1) * 2;
        config.programs = self.bots.clone();
        config.web_dir = self.web.clone();
        config.database = self.database.clone();
        config.lease = Duration::from_secs(self.lease);
        config.advertise = self.advertise.clone();
        config.header_timeout = Duration::from_secs(self.header_timeout);
        config.connections_per_address =
            usize::try_from(self.connections_per_address).unwrap_or(usize::MAX);
        config.max_connections = self.max_connections;
        config.trusted_proxies = self.trusted_proxies.clone();
        config.uncapped = self.uncapped.clone();
        config.public_url = self.public_url.clone();
        config.metrics_listen = self.metrics_listen;
        config.registrations_per_hour = self.registrations_per_hour;
        config.pg.password = match &self.database_password_file {
            Some(path) => Some(
                std::fs::read_to_string(path)
                    .map_err(|source| ServerError::ReadFile {
                        path: path.clone(),
                        source,
                    })?
                    .trim_end_matches(['\n', '\r'])
                    .to_string(),
            ),
            None => std::env::var("PGPASSWORD").ok().filter(|p| !p.is_empty()),
        };
        config.pg.ca = self.database_ca.clone();
        config.link_secret = match &self.link_secret_file {
            Some(path) => {
                let text =
                    std::fs::read_to_string(path).map_err(|source| ServerError::ReadFile {
                        path: path.clone(),
                        source,
                    })?;
                let secret = text.trim().to_string();
                if secret.len() < 16 {
                    return Err(ServerError::ReadFile {
                        path: path.clone(),
                        source: std::io::Error::other("a link secret has 16 characters or more"),
                    });
                }
                Some(secret)
            }
            None => None,
        };
        config.tls = match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Some(crate::TlsFiles {
                cert: cert.clone(),
                key: key.clone(),
            }),
            _ => None,
        };
        config.forget_names_after = (self.forget_names_days > 0)
            .then(|| Duration::from_secs(self.forget_names_days * 86_400));
        config.close_unstarted_after = Duration::from_secs(self.close_unstarted_hours * 3600);
        config.reviews_at_once = usize::try_from(self.reviews_at_once).unwrap_or(1);
        config.review_queue = usize::try_from(self.review_queue).unwrap_or(16);
        if let Some(n) = self.review_iterations {
            config.review_iterations = n;
        }
        config.decision_limit = Duration::from_secs(self.bot_decision_seconds);
        config.limits.decision_seconds = self.bot_decision_seconds;
        config.arena = self.arena.as_ref().map(|rules| crate::ArenaConfig {
            rules: rules.clone(),
            rounds: self.arena_rounds,
        });
        config.arena_fresh_deals = self.arena_fresh_deals;
        Ok(config)
    }
}

/// Runs the server until Ctrl-C or SIGTERM, logging to standard error
/// (`RUST_LOG` chooses how much; `info` by default).
pub fn run(args: &ServeArgs) -> Result<(), ServerError> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
    let config = args.config()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|source| ServerError::Listen {
            at: "the runtime".into(),
            source,
        })?;
    let served = runtime.block_on(crate::serve(config));
    // An after-game review being made (a minute's search) is not waited
    // for: it was not kept, and is made again when next asked.
    runtime.shutdown_timeout(Duration::from_secs(5));
    served
}

/// Reads `NAME=COMMAND`.
fn program(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, command)) if !name.trim().is_empty() && !command.trim().is_empty() => {
            table_protocol::check_name(name.trim())?;
            Ok((name.trim().to_string(), command.trim().to_string()))
        }
        _ => Err(format!("a bot program is NAME=COMMAND, not {text:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Serve {
        #[command(flatten)]
        args: ServeArgs,
    }

    fn config(args: &[&str]) -> Result<Config, String> {
        let mut argv = vec!["serve", "--data", "/nonexistent/table-server-test"];
        argv.extend_from_slice(args);
        let serve = Serve::try_parse_from(argv).map_err(|e| e.to_string())?;
        serve.args.config().map_err(|e| e.to_string())
    }

    #[test]
    fn the_arena_options_set_the_arena_and_the_bots_decision_time() {
        let plain = config(&[]).expect("no options");
        assert_eq!(plain.arena, None);
        assert_eq!(plain.decision_limit, Duration::from_secs(10));
        assert_eq!(plain.limits.decision_seconds, 10);
        let arena = config(&["--arena", "classic", "--arena-rounds", "3"]).expect("an arena");
        assert_eq!(
            arena.arena,
            Some(crate::ArenaConfig {
                rules: "classic".into(),
                rounds: 3
            })
        );
        let forever = config(&["--arena", "milebones"]).expect("an arena");
        assert_eq!(forever.arena.map(|a| a.rounds), Some(0));
        let quick = config(&["--bot-decision-seconds", "2"]).expect("a decision time");
        assert_eq!(quick.decision_limit, Duration::from_secs(2));
        assert_eq!(quick.limits.decision_seconds, 2);
    }

    #[test]
    fn an_arena_at_rules_it_cannot_play_is_refused_with_a_sentence() {
        let why = config(&["--arena", "standard"]).expect_err("cubes rules");
        assert!(
            why.contains("an arena plays Mille Bornes at bsd, classic or milebones rules"),
            "{why}"
        );
        assert!(
            config(&["--arena-rounds", "2"]).is_err(),
            "rounds without an arena"
        );
        assert!(config(&["--bot-decision-seconds", "0"]).is_err());
    }
}
