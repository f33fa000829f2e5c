//! The table server: tables of both games for people at different
//! terminals and browsers, computer players filling the empty places, every
//! move in the database (SQLite, or PostgreSQL shared by several
//! instances) before anybody hears of it.
//!
//! ```text
//!  clients --WebSocket /ws (TCP and Unix socket)--> conn (one task each)
//!                                                     | commands
//!                                                     v
//!                                   table actor (one task per table) --> Store (SQLite or PostgreSQL)
//!                                     owns Table<G>, seats, connections
//! ```
//!
//! Several instances may share one PostgreSQL database: each runs the
//! tables whose lease it holds, renews the leases every second, takes over
//! the tables of an instance whose leases ran out (replaying their logs),
//! and forwards a connection's messages for a table another instance runs
//! to that instance ([`forward`]).
//!
//! - [`listen`]: the listeners, and the caps a connection passes first.
//! - [`conn`]: a connection: handshake, names and tokens (people's and
//!   bots'), limits, routing, and the opening of tables (invitations).
//! - [`table`]: one table's actor, the only owner of its game.
//! - [`store`]: the database, its two backends and the leases.
//! - [`forward`]: a connection's link to the instance that runs a table.
//! - [`scores`]: finished games' scores and the rankings.
//! - [`games`]: what the server needs of each game.
//! - [`metrics`]: `/health` and `/metrics`.
//! - [`arena`]: the arena's rounds of bots (`--arena`) and its standings.
//! - [`web`]: the web page, at `/`.
//!
//! `mille serve` and `cubes serve` both run [`serve`]; the protocol is the
//! `table-protocol` crate's, documented in `docs/table-protocol.md`.

pub mod arena;
pub mod cli;
pub mod conn;
pub mod forward;
pub mod games;
pub mod listen;
pub mod metrics;
pub mod pages;
pub mod ratings;
pub mod review;
pub mod scores;
pub mod store;
pub mod table;
pub mod web;

use axum::Router;
use axum::extract::State;
use axum::extract::ws::WebSocketUpgrade;
use axum::response::IntoResponse;
use axum::routing::get;
use cubes_engine::Cubes;
use mille_engine::Mille;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use store::{DatabaseUrl, Instance, Store, StoredTable, Taken};
use table::{Actor, TableHandle};
use table_protocol::{
    BotSummary, GameKind, Limits, ServerMessage, TableId, TableStatus, TableSummary,
};
use tokio::sync::{Notify, mpsc};

/// How long a bot program may think over one decision.
const PROGRAM_TIMEOUT: Duration = Duration::from_secs(10);

/// How a server is set up.
#[derive(Clone, Debug)]
pub struct Config {
    /// The TCP address to listen on.
    pub listen: SocketAddr,
    /// The Unix socket to listen on too, if any.
    pub socket: Option<PathBuf>,
    /// The data directory: the database and the score files.
    pub data: PathBuf,
    /// How long a person may be away before a computer plays the seat
    /// (while somebody else is at the table).
    pub away: Duration,
    /// How long a game may stay paused, no person at it, before it is
    /// closed as abandoned.
    pub abandon_after: Duration,
    /// How long the table waits between hands for people to be ready.
    pub hand_pause: Duration,
    /// The pause before each computer move while somebody watches, so
    /// that people can follow.
    pub bot_delay: Duration,
    /// The pause after every hazard that a hidden coup-fourré chance may
    /// follow, chance or not, which is also the time a person has to call
    /// it: nothing public happens meanwhile, so that no seat can tell
    /// whether another holds a chance. Zero: no pause, no time limit, and
    /// moves wait for a pending chance (which tells that there is one).
    pub coup_fourre_window: Duration,
    /// How long a new connection has to say `hello`.
    pub handshake: Duration,
    /// The limits of every connection.
    pub limits: Limits,
    /// The most tables open at once.
    pub max_tables: usize,
    /// Bot programs offered as mille computer players: (level name,
    /// command line).
    pub programs: Vec<(String, String)>,
    /// Deal every new table from this seed instead of a random one: for
    /// tests that need a known position, never for a server people play
    /// on (whoever knows the seed knows every hand). No option sets it.
    pub fixed_seed: Option<u64>,
    /// Serve the web page from this directory instead of the built-in
    /// copy (for working on the page without rebuilding).
    pub web_dir: Option<PathBuf>,
    /// The database (`sqlite:PATH` or `postgres://…`); `None`: SQLite in
    /// the data directory.
    pub database: Option<String>,
    /// How long a table's lease lasts without renewal: how soon another
    /// instance takes over the tables of one that died.
    pub lease: Duration,
    /// Where the other instances reach this one (`ws://HOST:PORT`);
    /// `None`: the address it listens on.
    pub advertise: Option<String>,
    /// How long a client has to send a request's headers.
    pub header_timeout: Duration,
    /// The most connections from one client address (an IPv6 /64).
    pub connections_per_address: usize,
    /// The most connections in all; `None`: as many as the process's file
    /// limit leaves room for.
    pub max_connections: Option<usize>,
    /// Proxies whose `X-Forwarded-For` / `Forwarded` name the client.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Addresses held to no per-address cap (connections, registrations),
    /// only to the total: a load generator, a monitoring host.
    pub uncapped: Vec<std::net::IpAddr>,
    /// The origin of the page as people reach it (`https://HOST[:PORT]`,
    /// see [`public_origin`]), when that is a name and not an address.
    pub public_url: Option<String>,
    /// Where `/metrics` is served instead of on this machine only.
    pub metrics_listen: Option<SocketAddr>,
    /// The most names one client address registers in an hour.
    pub registrations_per_hour: usize,
    /// Serve HTTPS and WSS with this certificate and key instead of plain
    /// HTTP on the TCP address.
    pub tls: Option<TlsFiles>,
    /// PostgreSQL's password and certificate authority, apart from
    /// `database`.
    pub pg: store::PgSecrets,
    /// The secret the instances sharing a database prove their links
    /// with; `None`: links are taken on their word (a warning at start).
    pub link_secret: Option<String>,
    /// A name nobody signed in with for this long, with no game, is let go
    /// (`None`: never).
    pub forget_names_after: Option<Duration>,
    /// A table whose game has not started this long after it opened
    /// closes, and is removed.
    pub close_unstarted_after: Duration,
    /// The most after-game reviews made at once, and the threads their
    /// searches share beside the tables; 0 makes none (they wait for
    /// another instance to make them).
    pub reviews_at_once: usize,
    /// The most reviews waiting their turn; more are refused (503).
    pub review_queue: usize,
    /// The search iterations a mille review spends on each decision.
    pub review_iterations: u32,
    /// How long a bot may take over one decision (announced as
    /// `limits.decision_seconds`).
    pub decision_limit: Duration,
    /// The arena this server runs, if any.
    pub arena: Option<ArenaConfig>,
    /// Whether the arena deals every game afresh instead of each pair's
    /// two games on one deal: luck no longer cancels, but no bot can carry
    /// what it saw of a deal into the pair's other game.
    pub arena_fresh_deals: bool,
}

/// An arena: bots paired continuously at one ruleset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArenaConfig {
    /// The mille ruleset (`bsd`, `classic` or `milebones`), two players.
    pub rules: String,
    /// How many rounds it plays before it stops; 0: rounds without end.
    pub rounds: u32,
}

impl Config {
    /// The defaults, with the data in `data`.
    pub fn new(data: PathBuf) -> Config {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], table_protocol::DEFAULT_PORT)),
            socket: None,
            data,
            away: Duration::from_secs(60),
            hand_pause: Duration::from_secs(30),
            abandon_after: Duration::from_secs(24 * 3600),
            bot_delay: Duration::from_millis(500),
            coup_fourre_window: Duration::from_secs(2),
            handshake: Duration::from_secs(10),
            limits: Limits {
                max_message_bytes: 16 * 1024,
                messages_per_second: 20,
                burst: 40,
                idle_seconds: 120,
                away_seconds: 60,
                decision_seconds: 10,
            },
            decision_limit: Duration::from_secs(10),
            arena: None,
            arena_fresh_deals: false,
            max_tables: 20_000,
            programs: Vec::new(),
            fixed_seed: None,
            web_dir: None,
            database: None,
            lease: Duration::from_secs(5),
            advertise: None,
            header_timeout: Duration::from_secs(10),
            connections_per_address: 32,
            max_connections: None,
            trusted_proxies: Vec::new(),
            uncapped: Vec::new(),
            public_url: None,
            metrics_listen: None,
            registrations_per_hour: 20,
            tls: None,
            pg: store::PgSecrets::default(),
            link_secret: None,
            forget_names_after: Some(Duration::from_secs(180 * 86_400)),
            close_unstarted_after: Duration::from_secs(86_400),
            reviews_at_once: 1,
            review_queue: 16,
            review_iterations: mille_review::ReviewConfig::default().iterations,
        }
    }
}

/// A TLS certificate chain and its private key, PEM files.
#[derive(Clone, Debug)]
pub struct TlsFiles {
    /// The certificate chain, the server's first.
    pub cert: PathBuf,
    /// Its private key.
    pub key: PathBuf,
}

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The database could not be opened.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// The data directory could not be made.
    #[error("cannot create the data directory {path}: {source}")]
    DataDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file the options name could not be read.
    #[error("cannot read {path}: {source}")]
    ReadFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// An address could not be listened on.
    #[error("cannot listen on {at}: {source}")]
    Listen {
        /// The address or socket path.
        at: String,
        /// Why.
        source: std::io::Error,
    },
    /// The TLS certificate or key cannot be used.
    #[error(transparent)]
    Tls(#[from] listen::TlsError),
    /// Another server already answers on the Unix socket.
    #[error("another table server already listens on {0}")]
    SocketInUse(PathBuf),
}

/// The tables one name opened: those open, and openings under way.
#[derive(Debug, Default)]
struct Opened {
    tables: Vec<TableId>,
    pending: usize,
}

/// A table being opened, counted for its name until it is (or is not).
pub struct Reservation<'a> {
    shared: &'a Shared,
    name: String,
}

impl Reservation<'_> {
    /// The table was opened as `id`.
    pub fn opened(self, id: TableId) {
        if let Ok(mut opened) = self.shared.opened.lock()
            && let Some(o) = opened.get_mut(&self.name)
        {
            o.tables.push(id);
        }
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        if let Ok(mut opened) = self.shared.opened.lock()
            && let Some(o) = opened.get_mut(&self.name)
        {
            o.pending = o.pending.saturating_sub(1);
            if o.pending == 0 && o.tables.is_empty() {
                opened.remove(&self.name);
            }
        }
    }
}

/// What a connection is sent: a message, or the last word before the
/// connection closes.
#[derive(Debug)]
pub enum Out {
    /// A message (JSON text).
    Text(Arc<str>),
    /// Close the connection with this code (RFC 6455) and reason.
    Close(u16, String),
}

/// How often unused names and unstarted tables are swept (and once at
/// start).
const SWEEP_EVERY: Duration = Duration::from_secs(3600);

/// The most tables a `list` answers with: a lobby's worth, so that an
/// answer stays small however many tables are open.
pub const LIST_MAX: usize = 100;

/// The most bytes queued for one connection: a client that does not read
/// is closed before it can make the server hold more for it.
pub const QUEUED_BYTES: usize = 512 * 1024;

/// Where a table writes to a connection. A connection that does not read
/// its messages fast enough is closed rather than let its queue grow.
#[derive(Clone, Debug)]
pub struct Outbox {
    tx: mpsc::Sender<Out>,
    slow: Arc<Notify>,
    /// The bytes queued and not yet written.
    queued: Arc<std::sync::atomic::AtomicUsize>,
    /// The server's count of `error` messages sent.
    errors: prometheus_client::metrics::counter::Counter,
}

impl Outbox {
    /// Queues `text`; answers false (and has the connection closed) if its
    /// queue is full.
    pub fn send(&self, text: Arc<str>) -> bool {
        let n = text.len();
        let before = self.queued.fetch_add(n, Ordering::SeqCst);
        if before.saturating_add(n) > QUEUED_BYTES {
            self.queued.fetch_sub(n, Ordering::SeqCst);
            self.slow.notify_one();
            return false;
        }
        match self.tx.try_send(Out::Text(text)) {
            Ok(()) => true,
            Err(_) => {
                self.queued.fetch_sub(n, Ordering::SeqCst);
                self.slow.notify_one();
                false
            }
        }
    }

    /// Closes the connection with `reason` (its client reconnects).
    pub fn close(&self, reason: String) {
        let _ = self.tx.try_send(Out::Close(conn::POLICY, reason));
    }

    /// Queues a message (an `error` is counted for `/metrics`).
    pub fn send_msg(&self, msg: &ServerMessage) -> bool {
        if let ServerMessage::Error(_) = msg {
            self.errors.inc();
        }
        self.send(msg.to_json().into())
    }
}

/// What every connection and table shares.
pub struct Shared {
    /// The setup.
    pub config: Config,
    /// The database.
    pub store: Store,
    /// The figures.
    pub metrics: metrics::Metrics,
    tables: Mutex<HashMap<TableId, TableHandle>>,
    /// The lobby lines of the tables other instances run, as last read.
    elsewhere: Mutex<Vec<TableSummary>>,
    /// Tables whose log this instance could not replay: not taken over
    /// again (each is logged once, and left for an operator).
    unplayable: Mutex<std::collections::HashSet<TableId>>,
    /// Rankings made from the shared database's score records, with how
    /// many records they were made from: made again only when a game
    /// has been added.
    pub(crate) rankings: Mutex<HashMap<scores::RankingsKey, (usize, String)>>,
    next_conn: AtomicU64,
    /// The tables each name opened here, and its openings under way.
    opened: Mutex<HashMap<String, Opened>>,
    /// The connections signed in here, by name: closed when the name's
    /// token is replaced or revoked.
    signed_in: Mutex<HashMap<String, Vec<(u64, Outbox)>>>,
    /// The bots signed in here (not over a link from another instance),
    /// by name, as their last hello described them.
    bots: Mutex<HashMap<String, BotSummary>>,
    /// When names were registered lately, by client address.
    registrations: Mutex<HashMap<[u8; 8], std::collections::VecDeque<std::time::Instant>>>,
    /// The connections' caps.
    pub gate: Arc<listen::Gate>,
    /// The rounds of this server's arena that are over: their games'
    /// records and replays may be shown (see [`arena::shown`]).
    pub arena_rounds_over: std::sync::atomic::AtomicU32,
    /// TLS for links to other instances.
    pub link_tls: Option<Arc<rustls::ClientConfig>>,
}

impl Shared {
    /// A table's handle.
    pub fn table(&self, id: TableId) -> Option<TableHandle> {
        self.tables.lock().ok()?.get(&id).cloned()
    }

    /// The lobby as `name` sees it: every public table and the private
    /// ones `name` sits at.
    pub fn list(&self, name: &str) -> Vec<TableSummary> {
        let handles: Vec<TableHandle> = match self.tables.lock() {
            Ok(t) => t.values().cloned().collect(),
            Err(_) => return Vec::new(),
        };
        let mut list: Vec<TableSummary> = handles
            .iter()
            .filter_map(|h| h.summary.lock().ok().map(|s| s.clone()))
            .collect();
        if let Ok(elsewhere) = self.elsewhere.lock() {
            // A table taken over a moment ago may still be in both.
            let here: std::collections::HashSet<TableId> = list.iter().map(|s| s.id).collect();
            list.extend(elsewhere.iter().filter(|s| !here.contains(&s.id)).cloned());
        }
        let mine = |s: &TableSummary| {
            s.seats
                .iter()
                .any(|seat| seat.player.as_deref() == Some(name))
        };
        let mut list: Vec<TableSummary> =
            list.into_iter().filter(|s| !s.private || mine(s)).collect();
        if list.len() > LIST_MAX {
            // What a lobby shows first: the player's own tables, then those
            // waiting for players, then those playing, newest first.
            list.sort_by_key(|s| {
                let rank = match s.status {
                    _ if mine(s) => 0,
                    TableStatus::Waiting => 1,
                    TableStatus::Playing => 2,
                    TableStatus::Over => 3,
                };
                (rank, std::cmp::Reverse(s.id))
            });
            list.truncate(LIST_MAX);
        }
        list.sort_by_key(|s| s.id);
        list
    }

    /// A place for one more table opened by `name`, if the tables it
    /// opened that are not over (and those it is opening) number fewer
    /// than [`conn::TABLES_PER_NAME`].
    pub fn reserve_table(&self, name: &str) -> Option<Reservation<'_>> {
        let tables = self.tables.lock().ok()?;
        let mut opened = self.opened.lock().ok()?;
        let entry = opened.entry(name.to_string()).or_default();
        entry.tables.retain(|id| {
            tables.get(id).is_some_and(|h| {
                h.summary
                    .lock()
                    .is_ok_and(|s| s.status != TableStatus::Over)
            })
        });
        if entry.tables.len() + entry.pending >= conn::TABLES_PER_NAME {
            return None;
        }
        entry.pending += 1;
        Some(Reservation {
            shared: self,
            name: name.to_string(),
        })
    }

    /// Whether `client` may register one more name now: fewer than
    /// `registrations_per_hour` in the last hour (the Unix socket's users
    /// are this machine's, and not counted).
    pub fn may_register(&self, client: listen::Client) -> bool {
        if self.uncapped(client) {
            return true;
        }
        let Some(key) = client.key() else {
            return true;
        };
        let Ok(mut all) = self.registrations.lock() else {
            return false;
        };
        let hour_ago = std::time::Instant::now().checked_sub(Duration::from_secs(3600));
        // Addresses whose hour has passed are forgotten, so the map holds
        // only the last hour's registrations.
        all.retain(|_, times| {
            while times
                .front()
                .is_some_and(|t| hour_ago.is_some_and(|h| *t < h))
            {
                times.pop_front();
            }
            !times.is_empty()
        });
        all.get(&key)
            .is_none_or(|t| t.len() < self.config.registrations_per_hour)
    }

    /// Whether `client` is held to no per-address cap.
    pub fn uncapped(&self, client: listen::Client) -> bool {
        match client {
            listen::Client::Ip(ip) => self.config.uncapped.contains(&ip),
            listen::Client::Local => false,
        }
    }

    /// Connection `conn` signed in as `name`; `bot`: the name is a bot's,
    /// connected to this instance (it can be invited here).
    pub fn signed_in(&self, name: &str, conn: u64, out: Outbox, bot: Option<BotSummary>) {
        // The bots' lock is taken inside the connections' one (as in
        // `signed_off`), so that both always agree.
        if let Ok(mut all) = self.signed_in.lock() {
            all.entry(name.to_string()).or_default().push((conn, out));
            if let (Some(bot), Ok(mut bots)) = (bot, self.bots.lock()) {
                bots.insert(name.to_string(), bot);
            }
        }
    }

    /// Connection `conn`, signed in as `name`, closed.
    pub fn signed_off(&self, name: &str, conn: u64) {
        if let Ok(mut all) = self.signed_in.lock()
            && let Some(conns) = all.get_mut(name)
        {
            conns.retain(|(c, _)| *c != conn);
            if conns.is_empty() {
                all.remove(name);
                if let Ok(mut bots) = self.bots.lock() {
                    bots.remove(name);
                }
            }
        }
    }

    /// The bots connected to this instance now, by name.
    pub fn bots(&self) -> Vec<BotSummary> {
        let mut bots: Vec<BotSummary> = self
            .bots
            .lock()
            .map(|b| b.values().cloned().collect())
            .unwrap_or_default();
        bots.sort_by(|a, b| a.name.cmp(&b.name));
        bots
    }

    /// Bot `name`, if it is connected to this instance now.
    pub fn bot_here(&self, name: &str) -> Option<BotSummary> {
        self.bots.lock().ok()?.get(name).cloned()
    }

    /// Sends `msg` to every connection of bot `name` here; answers whether
    /// it had one.
    pub fn invite(&self, bot: &str, msg: &ServerMessage) -> bool {
        if self.bot_here(bot).is_none() {
            return false;
        }
        let Ok(all) = self.signed_in.lock() else {
            return false;
        };
        let Some(conns) = all.get(bot) else {
            return false;
        };
        let text: Arc<str> = msg.to_json().into();
        let mut sent = false;
        for (_, out) in conns {
            sent |= out.send(Arc::clone(&text));
        }
        sent
    }

    /// Closes `name`'s connections other than `conn`, with `reason`.
    pub fn close_others(&self, name: &str, conn: u64, reason: &str) {
        if let Ok(all) = self.signed_in.lock()
            && let Some(conns) = all.get(name)
        {
            for (c, out) in conns {
                if *c != conn {
                    out.close(reason.to_string());
                }
            }
        }
    }

    /// `client` registered a name.
    pub fn registered(&self, client: listen::Client) {
        if let (Some(key), Ok(mut all)) = (client.key(), self.registrations.lock()) {
            all.entry(key)
                .or_default()
                .push_back(std::time::Instant::now());
        }
    }

    /// Lets go of the names unused for `forget_names_after` that have no
    /// game, and removes the tables that closed before their game
    /// started (a day after they opened, by default).
    pub async fn sweep(&self) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let before =
            |age: Duration| i64::try_from(now.saturating_sub(age.as_secs())).unwrap_or(i64::MAX);
        // Never: a time before any name.
        let names = self.config.forget_names_after.map_or(i64::MIN, before);
        let tables = before(self.config.close_unstarted_after);
        match self.store.sweep(names, tables).await {
            Ok(swept) if swept != store::Swept::default() => {
                tracing::info!(
                    names = swept.names,
                    tables = swept.tables,
                    "swept the unused"
                );
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "cannot sweep the unused names and tables"),
        }
    }

    /// How many rankings are kept made.
    pub fn rankings_cached(&self) -> usize {
        self.rankings.lock().map_or(0, |c| c.len())
    }

    /// How many tables are open.
    pub fn table_count(&self) -> usize {
        self.tables.lock().map_or(0, |t| t.len())
    }

    /// A new connection's number.
    pub fn next_conn(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    /// A computer player at `level`: a built-in level, or a bot program
    /// the operator named.
    pub fn bot<G: games::ServerGame>(
        &self,
        level: &str,
        seed: u64,
    ) -> Result<Box<dyn game_table::Bot<G>>, String> {
        match self.program::<G>(level) {
            Some(command) => G::program(command, PROGRAM_TIMEOUT),
            None => G::bot(level, seed),
        }
    }

    /// The computer levels of a game: the built-in ones, then the bot
    /// programs.
    pub fn levels<G: games::ServerGame>(&self) -> Vec<String> {
        let mut levels = G::levels();
        if G::KIND == GameKind::Mille {
            levels.extend(self.config.programs.iter().map(|(name, _)| name.clone()));
        }
        levels
    }

    /// Whether `level` is one of the game's levels (a program is checked
    /// by name, not started).
    pub fn check_level<G: games::ServerGame>(&self, level: &str) -> Result<(), String> {
        if self.program::<G>(level).is_some() {
            return Ok(());
        }
        G::bot(level, 0).map(|_| ())
    }

    fn program<G: games::ServerGame>(&self, level: &str) -> Option<&str> {
        if G::KIND != GameKind::Mille {
            return None;
        }
        self.config
            .programs
            .iter()
            .find(|(name, _)| name == level)
            .map(|(_, command)| command.as_str())
    }

    fn forget(&self, id: TableId) {
        if let Ok(mut t) = self.tables.lock() {
            t.remove(&id);
            self.metrics.tables.set(t.len() as i64);
        }
    }

    /// Starts a table's actor and lists it.
    fn launch<G: games::ServerGame>(
        self: &Arc<Shared>,
        stored: StoredTable,
    ) -> Result<TableHandle, String> {
        let id = stored.id;
        // Never two actors of one table: their writes would pass the same
        // lease check.
        if let Some(running) = self.table(id) {
            return Ok(running);
        }
        let actor = Actor::<G>::restore(stored, Arc::clone(self))?;
        let (tx, rx) = mpsc::unbounded_channel();
        let handle = actor.handle(tx);
        if let Ok(mut t) = self.tables.lock() {
            t.insert(id, handle.clone());
            self.metrics.tables.set(t.len() as i64);
        }
        tokio::spawn(actor.run(rx));
        Ok(handle)
    }

    /// Takes table `id` over if nobody holds its lease (or it ran out):
    /// replays it and runs it here. Answers its handle, or `None` if
    /// another instance took it first or it cannot be replayed.
    pub async fn adopt(
        self: &Arc<Shared>,
        id: TableId,
    ) -> Result<Option<TableHandle>, store::StoreError> {
        let Some(stored) = self.store.take(id).await? else {
            return Ok(None);
        };
        Ok(self.restore(stored))
    }

    /// Runs a table read from the database; one that cannot be read back
    /// or replayed is left in the database, untouched, for a later version
    /// or an operator to look at, and not taken over again by this
    /// instance.
    fn restore(self: &Arc<Shared>, taken: Taken) -> Option<TableHandle> {
        let launched = taken.and_then(|stored| {
            let id = stored.id;
            self.launch_any(stored).map_err(|why| (id, why))
        });
        match launched {
            Ok(h) => Some(h),
            Err((id, why)) => {
                tracing::error!(
                    table = id,
                    why,
                    "a table cannot be restored; it is left out"
                );
                if let Ok(mut unplayable) = self.unplayable.lock() {
                    unplayable.insert(id);
                }
                None
            }
        }
    }

    /// Whether this instance could not replay table `id`.
    pub fn unplayable(&self, id: TableId) -> bool {
        self.unplayable.lock().is_ok_and(|u| u.contains(&id))
    }

    /// One round of the leases, every second with a shared database:
    /// renews the leases of the tables running here (and stops those
    /// another instance took), takes over the tables nobody holds,
    /// publishes this instance's lobby lines and reads the others'.
    async fn lease_round(self: &Arc<Shared>, state: &mut LeaseState) {
        let local: Vec<(TableId, TableHandle)> = match self.tables.lock() {
            Ok(t) => t.iter().map(|(id, h)| (*id, h.clone())).collect(),
            Err(_) => return,
        };
        let ids: Vec<TableId> = local.iter().map(|(id, _)| *id).collect();
        match self.store.renew(ids).await {
            Ok(kept) => {
                state.renewed = std::time::Instant::now();
                let kept: std::collections::HashSet<TableId> = kept.into_iter().collect();
                for (id, h) in &local {
                    if !kept.contains(id) {
                        let _ = h.commands.send(table::Cmd::LeaseLost);
                    }
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot renew the leases");
                // Cut off from the database for a whole lease: another
                // instance may run these tables now. They stop here, and
                // their people reconnect to wherever they are run.
                if state.renewed.elapsed() >= self.config.lease {
                    for (_, h) in &local {
                        let _ = h.commands.send(table::Cmd::LeaseLost);
                    }
                }
                // Nothing is taken over by an instance that cannot renew.
                return;
            }
        }
        let skip: Vec<TableId> = self
            .unplayable
            .lock()
            .map(|u| u.iter().copied().collect())
            .unwrap_or_default();
        match self.store.take_over(100, skip).await {
            Ok(tables) => {
                if !tables.is_empty() {
                    tracing::info!(tables = tables.len(), "took over tables nobody runs");
                }
                for taken in tables {
                    self.restore(taken);
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot take tables over"),
        }
        // A line is written again when its seats, status or spectators
        // change, not at every move: the other lobbies' move counts may lag.
        let mut lines = Vec::new();
        for (id, h) in &local {
            let Ok(summary) = h.summary.lock().map(|s| s.clone()) else {
                continue;
            };
            let Ok(line) = serde_json::to_string(&summary) else {
                continue;
            };
            let key =
                serde_json::to_string(&TableSummary { seq: 0, ..summary }).unwrap_or_default();
            if state.published.get(id) != Some(&key) {
                state.published.insert(*id, key);
                lines.push((*id, line));
            }
        }
        state
            .published
            .retain(|id, _| local.iter().any(|(l, _)| l == id));
        if let Err(e) = self.store.publish(lines).await {
            tracing::warn!(error = %e, "cannot publish the lobby");
            state.published.clear();
        }
        match self.store.lobby().await {
            Ok(lines) => {
                if let Ok(mut elsewhere) = self.elsewhere.lock() {
                    *elsewhere = lines;
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot read the other instances' lobby"),
        }
    }

    /// Starts a stored table of either game.
    fn launch_any(self: &Arc<Shared>, stored: StoredTable) -> Result<TableHandle, String> {
        match stored.game {
            GameKind::Mille => self.launch::<Mille>(stored),
            GameKind::Cubes => self.launch::<Cubes>(stored),
        }
    }
}

/// What the lease round remembers from one round to the next.
struct LeaseState {
    /// The lobby lines written, without their move counts.
    published: HashMap<TableId, String>,
    /// When the leases were last renewed.
    renewed: std::time::Instant,
}

/// A server that runs: its addresses, and how to stop it.
pub struct Running {
    /// The TCP address it listens on (with the port chosen, if 0 was
    /// asked).
    pub addr: SocketAddr,
    /// The Unix socket it listens on.
    pub socket: Option<PathBuf>,
    /// Where its figures are served, when they have a listener of their own.
    pub metrics_addr: Option<SocketAddr>,
    /// Its database.
    pub database: DatabaseUrl,
    /// What it shares (for tests: the figures).
    pub shared: Arc<Shared>,
    stop: Arc<Notify>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Running {
    /// Stops listening and waits for the listeners to end; with a shared
    /// database, gives this instance's tables up so that the others take
    /// them over at once.
    pub async fn stop(self) {
        self.stop.notify_waiters();
        for t in self.tasks {
            let _ = tokio::time::timeout(Duration::from_secs(2), t).await;
        }
        if self.shared.store.shared()
            && let Err(e) = self.shared.store.retire().await
        {
            tracing::warn!(error = %e, "cannot give the tables up");
        }
        if let Some(path) = &self.socket {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Opens the database, restores every unfinished table and starts
/// listening.
pub async fn start(config: Config) -> Result<Running, ServerError> {
    private_dir(&config.data).map_err(|source| ServerError::DataDir {
        path: config.data.clone(),
        source,
    })?;
    // The certificate first: a wrong one stops the start before anything
    // listens.
    let tls = match &config.tls {
        Some(files) => Some(listen::tls_acceptor(&files.cert, &files.key)?),
        None => None,
    };
    // Listening first: the other instances are told the address.
    let tcp = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|source| ServerError::Listen {
            at: config.listen.to_string(),
            source,
        })?;
    let addr = tcp.local_addr().map_err(|source| ServerError::Listen {
        at: config.listen.to_string(),
        source,
    })?;
    let url = match &config.database {
        Some(text) => DatabaseUrl::parse(text)?,
        None => DatabaseUrl::Sqlite(config.data.join("server.db")),
    };
    let instance = Instance {
        id: conn::secret(8).map_err(|why| ServerError::Store(store::StoreError::Corrupt(why)))?,
        address: config
            .advertise
            .clone()
            .unwrap_or_else(|| advertised(addr, config.tls.is_some())),
        lease: config.lease,
    };
    tracing::info!(
        instance = instance.id,
        address = instance.address,
        "this instance"
    );
    let (store, stored) = Store::open_with(&url, instance, &config.pg).await?;
    let database = url;
    let mut taken: Vec<Taken> = stored;
    let files = listen::raise_file_limit();
    let link_tls = if store.shared() {
        let own = config.tls.as_ref().map(|t| t.cert.as_path());
        match forward::link_tls(own) {
            Ok(c) => Some(c),
            Err(why) => {
                tracing::warn!(why, "links to other instances cannot use TLS");
                None
            }
        }
    } else {
        None
    };
    if store.shared() && config.link_secret.is_none() {
        tracing::warn!(
            "links between instances are taken on their word: give every instance --link-secret-file"
        );
    }
    let max_connections = config
        .max_connections
        .unwrap_or_else(|| listen::connections_for(files));
    if store.shared() {
        taken = store.take_over(usize::MAX, Vec::new()).await?;
        if config.advertise.is_none() && config.listen.ip().is_unspecified() {
            tracing::warn!(
                "the other instances reach this one at {}: set --advertise if they run on other machines",
                advertised(addr, config.tls.is_some())
            );
        }
    }
    let shared = Arc::new(Shared {
        config: config.clone(),
        store,
        metrics: metrics::Metrics::default(),
        tables: Mutex::new(HashMap::new()),
        elsewhere: Mutex::new(Vec::new()),
        unplayable: Mutex::new(std::collections::HashSet::new()),
        rankings: Mutex::new(HashMap::new()),
        next_conn: AtomicU64::new(1),
        opened: Mutex::new(HashMap::new()),
        registrations: Mutex::new(HashMap::new()),
        signed_in: Mutex::new(HashMap::new()),
        bots: Mutex::new(HashMap::new()),
        arena_rounds_over: std::sync::atomic::AtomicU32::new(0),
        gate: listen::Gate::new(config.connections_per_address, max_connections),
        link_tls,
    });
    tracing::info!(
        max_connections,
        per_address = config.connections_per_address,
        file_limit = files,
        "connections"
    );
    let restored = taken.len();
    for table in taken {
        // One table that cannot be replayed must not keep the others from
        // being played.
        shared.restore(table);
    }
    if restored > 0 {
        tracing::info!(tables = restored, "restored the unfinished tables");
    }
    let app = router(Arc::clone(&shared));
    let stop = Arc::new(Notify::new());
    let mut tasks = Vec::new();
    tasks.push(tokio::spawn(listen::serve(
        tcp,
        app.clone(),
        Arc::clone(&shared),
        Arc::clone(&stop),
        tls,
    )));
    let metrics_addr = match config.metrics_listen {
        Some(at) => {
            let listener =
                tokio::net::TcpListener::bind(at)
                    .await
                    .map_err(|source| ServerError::Listen {
                        at: at.to_string(),
                        source,
                    })?;
            let bound = listener.local_addr().ok();
            tasks.push(tokio::spawn(listen::serve(
                listener,
                metrics_router(Arc::clone(&shared)),
                Arc::clone(&shared),
                Arc::clone(&stop),
                None,
            )));
            bound
        }
        None => None,
    };
    let socket = match &config.socket {
        Some(path) => {
            let unix = bind_unix(path).await?;
            tasks.push(tokio::spawn(listen::serve(
                unix,
                app,
                Arc::clone(&shared),
                Arc::clone(&stop),
                None,
            )));
            Some(path.clone())
        }
        None => None,
    };
    if shared.store.shared() {
        let leasing = Arc::clone(&shared);
        let stopped = Arc::clone(&stop);
        // A lease is renewed three times or more before it runs out.
        let every = (config.lease / 3).min(Duration::from_secs(1));
        tasks.push(tokio::spawn(async move {
            let mut every = tokio::time::interval(every);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut state = LeaseState {
                published: HashMap::new(),
                renewed: std::time::Instant::now(),
            };
            loop {
                tokio::select! {
                    _ = every.tick() => leasing.lease_round(&mut state).await,
                    () = stopped.notified() => break,
                }
            }
        }));
    }
    let sweeping = Arc::clone(&shared);
    let stopped = Arc::clone(&stop);
    tasks.push(tokio::spawn(async move {
        let mut every = tokio::time::interval(SWEEP_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = every.tick() => sweeping.sweep().await,
                () = stopped.notified() => break,
            }
        }
    }));
    if config.arena.is_some() {
        tasks.push(tokio::spawn(arena::run(
            Arc::clone(&shared),
            Arc::clone(&stop),
        )));
    }
    let ticking = Arc::clone(&shared);
    let stopped = Arc::clone(&stop);
    tasks.push(tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(1));
        loop {
            tokio::select! {
                _ = every.tick() => ticking.metrics.tick(),
                () = stopped.notified() => break,
            }
        }
    }));
    Ok(Running {
        addr,
        socket,
        metrics_addr,
        database,
        shared,
        stop,
        tasks,
    })
}

/// Makes the data directory, readable by its owner only (mode 0700): it
/// holds every table's seed, which deals every hand, and the private
/// tables' invitation codes. One made by an earlier version is tightened
/// when this user owns it and it is not a shared directory (sticky, like
/// `/tmp`); else the server says so.
fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let meta = std::fs::metadata(dir)?;
    let mode = meta.permissions().mode();
    if mode & 0o077 != 0 {
        let shared = mode & 0o1000 != 0;
        if meta.uid() == nix::unistd::geteuid().as_raw() && !shared {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        } else {
            tracing::warn!(
                dir = %dir.display(),
                "other users can read the data directory's list of files: give the server a directory of its own"
            );
        }
    }
    Ok(())
}

/// The address other instances reach this one at, from the one it listens
/// on: a wildcard address is this machine's loopback (set `--advertise` when
/// the instances are on several machines).
fn advertised(addr: SocketAddr, tls: bool) -> String {
    let host = match addr.ip() {
        std::net::IpAddr::V4(ip) if ip.is_unspecified() => "127.0.0.1".to_string(),
        std::net::IpAddr::V6(ip) if ip.is_unspecified() => "[::1]".to_string(),
        std::net::IpAddr::V6(ip) => format!("[{ip}]"),
        ip => ip.to_string(),
    };
    let scheme = if tls { "wss" } else { "ws" };
    format!("{scheme}://{host}:{}", addr.port())
}

/// Listens on a Unix socket, replacing a stale socket file left by a server
/// that died, but never one a live server answers on.
async fn bind_unix(path: &Path) -> Result<tokio::net::UnixListener, ServerError> {
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if tokio::net::UnixStream::connect(path).await.is_ok() {
            return Err(ServerError::SocketInUse(path.to_path_buf()));
        }
        // Only a socket is taken for a dead server's leftover.
        if !std::os::unix::fs::FileTypeExt::is_socket(&meta.file_type()) {
            return Err(ServerError::Listen {
                at: path.display().to_string(),
                source: std::io::Error::other("a file that is not a socket is in the way"),
            });
        }
        let _ = std::fs::remove_file(path);
    }
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    tokio::net::UnixListener::bind(path).map_err(|source| ServerError::Listen {
        at: path.display().to_string(),
        source,
    })
}

/// A connection's read buffer. The WebSocket layer allocates it whole and
/// zero-fills it before every read: its default, 128 KiB, made 4,000
/// connections hold 500 MiB and spend a tenth of the server's time
/// clearing memory. Clients' messages are small; a larger one is read in
/// several pieces.
const READ_BUFFER: usize = 4 * 1024;

fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route(table_protocol::WS_PATH, get(upgrade))
        .route("/health", get(health))
        .route("/metrics", get(metrics_text))
        .merge(pages::routes(Arc::clone(&shared)))
        .fallback(get(web::file))
        .with_state(shared)
}

/// Whether a WebSocket request comes from another site's page: browsers
/// say which page opened it (`Origin`), and a page of another site must
/// not play here under the visitor's name. Programs send no `Origin`.
///
/// The server's own page is its public URL (`--public-url`), or a page it
/// served at an IP address or `localhost` (the origin is then the request's
/// own `Host`). A page at any other name is refused even when its `Host`
/// matches: that is what a DNS-rebinding page looks like, a stranger's
/// name made to point at this server.
fn cross_site(headers: &axum::http::HeaderMap, public_url: Option<&str>) -> bool {
    let Some(origin) = headers.get(axum::http::header::ORIGIN) else {
        return false;
    };
    let Some(origin) = origin.to_str().ok().map(|o| o.trim_end_matches('/')) else {
        return true;
    };
    if public_url.is_some_and(|p| p.eq_ignore_ascii_case(origin)) {
        return false;
    }
    let host = headers
        .get(axum::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let Some((_, origin_host)) = origin.split_once("://") else {
        return true;
    };
    if !origin_host.eq_ignore_ascii_case(host) {
        return true;
    }
    let name = host_name(origin_host);
    !(name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::IpAddr>().is_ok())
}

/// The host of `host[:port]` (`[v6]:port` gives `v6`).
fn host_name(host_port: &str) -> &str {
    if let Some(rest) = host_port.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host_port.rsplit_once(':') {
        Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => host_port,
    }
}

/// The origin of a public URL (`https://games.example.org`), as browsers
/// write it in `Origin`: scheme, host and a port only when not the
/// scheme's own.
pub fn public_origin(url: &str) -> Result<String, String> {
    let bad = || format!("a public URL is http(s)://HOST[:PORT], not {url:?}");
    let (scheme, rest) = url.split_once("://").ok_or_else(bad)?;
    let scheme = scheme.to_ascii_lowercase();
    let default = match scheme.as_str() {
        "http" => "80",
        "https" => "443",
        _ => return Err(bad()),
    };
    let host_port = rest.trim_end_matches('/');
    if host_port.is_empty() || host_port.contains(['/', '?', '#', '@', ' ']) {
        return Err(bad());
    }
    let host_port = host_port.to_ascii_lowercase();
    let host_port = match host_port.rsplit_once(':') {
        Some((h, port)) if port == default && !h.ends_with(':') => h.to_string(),
        _ => host_port,
    };
    Ok(format!("{scheme}://{host_port}"))
}

/// Whether `/metrics` may be answered to `client` on the game's listeners:
/// only on this machine, unless the figures have a listener of their own
/// (`--metrics-listen`), which is then the only place they are served.
fn metrics_allowed(shared: &Shared, client: listen::Client) -> bool {
    if shared.config.metrics_listen.is_some() {
        return false;
    }
    match client {
        listen::Client::Local => true,
        listen::Client::Ip(ip) => ip.is_loopback(),
    }
}

/// A throttle for the refusals of WebSocket requests.
static UPGRADE_LOG: listen::Throttle = listen::Throttle::new(30);

async fn upgrade(
    State(shared): State<Arc<Shared>>,
    axum::Extension(peer): axum::Extension<listen::Peer>,
    headers: axum::http::HeaderMap,
    ws: WebSocketUpgrade,
) -> axum::response::Response {
    let trusted = &shared.config.trusted_proxies;
    let client = peer.client(&headers, trusted);
    // Behind a proxy, the forwarded client is counted against its own cap
    // (the proxy's connection already counts in the total).
    let forwarded = if peer.via_proxy(trusted) && !shared.uncapped(client) {
        match shared.gate.admit(Some(client), false) {
            Ok(p) => Some(p),
            Err(full) => {
                shared.metrics.refused_connections.inc();
                listen::refused!(UPGRADE_LOG, client, why = %full, "a connection was refused");
                return (
                    axum::http::StatusCode::SERVICE_UNAVAILABLE,
                    format!("{full}: try again later\n"),
                )
                    .into_response();
            }
        }
    } else {
        None
    };
    let linked = match (
        &shared.config.link_secret,
        headers.get(forward::LINK_HEADER),
    ) {
        (Some(secret), Some(given)) => given
            .to_str()
            .is_ok_and(|g| forward::secret_matches(secret, g)),
        _ => false,
    };
    if cross_site(&headers, shared.config.public_url.as_deref()) {
        listen::refused!(UPGRADE_LOG, client, "a page of another site was refused");
        return (
            axum::http::StatusCode::FORBIDDEN,
            "a page of another site may not connect here\n",
        )
            .into_response();
    }
    // Up to four times the limit is read, so that a message a little too
    // large is answered with `too_large`; anything larger is cut off by
    // the WebSocket layer.
    let max = shared.config.limits.max_message_bytes.saturating_mul(4);
    ws.max_message_size(max)
        .max_frame_size(max)
        .read_buffer_size(READ_BUFFER)
        .on_upgrade(move |socket| async move {
            // The connection keeps its places at the gate while it lives.
            let _held = (peer.permit, forwarded);
            conn::serve(socket, shared, client, linked).await;
        })
        .into_response()
}

async fn health(State(shared): State<Arc<Shared>>) -> impl IntoResponse {
    axum::Json(serde_json::json!({
        "status": "ok",
        "version": env!("CARGO_PKG_VERSION"),
        "protocol": table_protocol::VERSION,
        "tables": shared.table_count(),
        "connections": shared.metrics.connections.get(),
    }))
}

async fn metrics_text(
    State(shared): State<Arc<Shared>>,
    axum::Extension(peer): axum::Extension<listen::Peer>,
    headers: axum::http::HeaderMap,
) -> axum::response::Response {
    let client = peer.client(&headers, &shared.config.trusted_proxies);
    if !metrics_allowed(&shared, client) {
        return (
            axum::http::StatusCode::NOT_FOUND,
            "the figures are served on this machine only (or at --metrics-listen)\n",
        )
            .into_response();
    }
    figures(State(shared)).await.into_response()
}

/// The Prometheus text, as `/metrics` serves it.
async fn figures(State(shared): State<Arc<Shared>>) -> impl IntoResponse {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        shared.metrics.text(),
    )
}

/// The figures' own listener (`--metrics-listen`): `/metrics` and
/// `/health` to whoever reaches it.
fn metrics_router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/metrics", get(figures))
        .route("/health", get(health))
        .with_state(shared)
}

/// Runs a server until Ctrl-C or SIGTERM: what `mille serve` and `cubes
/// serve` do.
pub async fn serve(config: Config) -> Result<(), ServerError> {
    let running = start(config).await?;
    let socket = running
        .socket
        .as_ref()
        .map(|p| format!(" and unix:{}", p.display()))
        .unwrap_or_default();
    let (ws, http) = if running.shared.config.tls.is_some() {
        ("wss", "https")
    } else {
        ("ws", "http")
    };
    println!(
        "table server listening on {ws}://{}{}{socket}",
        running.addr,
        table_protocol::WS_PATH
    );
    println!(
        "play in a browser at {http}://{}/, or with `mille --connect` and `cubes --connect`",
        running.addr
    );
    let shared = if running.shared.store.shared() {
        ", shared with the other instances"
    } else {
        ""
    };
    println!("every move is kept in {}{shared}", running.database);
    wait_for_stop().await;
    tracing::info!("stopping");
    running.stop().await;
    Ok(())
}

async fn wait_for_stop() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        if let Ok(mut term) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            tokio::select! {
                _ = ctrl_c => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = ctrl_c.await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{HeaderMap, HeaderValue, header};

    fn headers(origin: Option<&'static str>, host: &'static str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static(host));
        if let Some(o) = origin {
            h.insert(header::ORIGIN, HeaderValue::from_static(o));
        }
        h
    }

    #[test]
    fn only_the_servers_own_pages_and_programs_may_open_a_websocket() {
        let cross = |origin, host| cross_site(&headers(origin, host), None);
        assert!(!cross(None, "127.0.0.1:8780"));
        assert!(!cross(Some("http://127.0.0.1:8780"), "127.0.0.1:8780"));
        assert!(!cross(Some("http://localhost:8780/"), "localhost:8780"));
        assert!(!cross(Some("http://[::1]:8780"), "[::1]:8780"));
        assert!(!cross(Some("http://192.168.1.5:8780"), "192.168.1.5:8780"));
        assert!(cross(Some("https://evil.example"), "127.0.0.1:8780"));
        assert!(cross(Some("http://127.0.0.1:9999"), "127.0.0.1:8780"));
        assert!(cross(Some("null"), "127.0.0.1:8780"));
        // A rebinding page: a stranger's name pointed at this server, its
        // Host as its Origin.
        assert!(cross(
            Some("http://rebind.example:8780"),
            "rebind.example:8780"
        ));
        // A name is the server's own only when it is its public URL.
        let public = Some("https://games.example.org");
        let named = |origin, host| cross_site(&headers(origin, host), public);
        assert!(!named(
            Some("https://Games.example.org"),
            "games.example.org"
        ));
        assert!(named(Some("http://games.example.org"), "games.example.org"));
        assert!(named(Some("https://rebind.example"), "rebind.example"));
        assert!(!named(Some("http://127.0.0.1:8780"), "127.0.0.1:8780"));
    }

    #[test]
    fn a_public_url_is_read_as_the_origin_browsers_send() {
        assert_eq!(
            public_origin("https://Games.Example.org/"),
            Ok("https://games.example.org".into())
        );
        assert_eq!(
            public_origin("https://games.example.org:443"),
            Ok("https://games.example.org".into())
        );
        assert_eq!(
            public_origin("http://games.example.org:8780"),
            Ok("http://games.example.org:8780".into())
        );
        for bad in [
            "games.example.org",
            "ftp://x",
            "https://",
            "https://x/play",
            "https://u@x",
        ] {
            assert!(public_origin(bad).is_err(), "{bad}");
        }
    }
}
