//! A blocking, self-healing session with a table server, for terminal
//! games: a background thread keeps the connection (saying `hello` with the
//! saved token, pinging, reconnecting with backoff), and after each
//! reconnection takes the player back to its tables and sends its
//! unanswered moves again ([`Resume`]). The game's loop sends with
//! [`Session::send`] / [`Session::play`] and polls [`Note`]s.

use crate::Target;
use crate::connection::{ClientError, Connection, Welcome};
use crate::resume::Resume;
use crate::tokens::{Credentials, TokenStore};
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use table_protocol::{ClientMessage, ErrorCode, Limits, ServerMessage, TableId};
use tokio::sync::mpsc;

/// What the session tells the game.
#[derive(Clone, Debug, PartialEq)]
pub enum Note {
    /// A message from the server, as it came. After every (re)connection
    /// this starts with `welcome`, then the answers to the `join`/`watch`
    /// the session sent again (whose observations carry the events missed).
    Message(ServerMessage),
    /// The connection's state changed.
    Connection(Link),
}

/// The state of a session's connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Link {
    /// Connected and welcomed (the `welcome` message follows as a note).
    Connected,
    /// The connection is down; the session tries again (attempt 1, 2, ...).
    Reconnecting {
        /// How many tries since the last connection.
        attempt: u32,
        /// Why the last one failed, as a sentence.
        why: String,
    },
    /// Something the player should know that does not stop the session
    /// (the new token could not be saved).
    Warning(String),
    /// The session gave up (the name is taken, the server speaks another
    /// version, the saved tokens are damaged...): the sentence says why.
    /// Nothing more comes; start a new session to try again.
    Failed(String),
}

/// Why a session gave up, for a program that acts on it (the sentence for
/// the player is the one of [`Link::Failed`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The first connection could not be made: no table server answers
    /// at the address (or what answers is not one). Once a session has
    /// been connected it never gives up for this: it tries again.
    Unreachable {
        /// The system's reason ("Connection refused (os error 111)").
        reason: String,
    },
    /// The server refused the name: another player has it.
    NameTaken {
        /// The name.
        name: String,
    },
    /// The name is not one the server takes (too long, a space at its
    /// end...).
    BadName {
        /// The name.
        name: String,
    },
    /// The player signed out (`sign_out`): the server revoked the token,
    /// and it is forgotten here too. Connecting again would register the
    /// name afresh (or be refused it): that is the player's choice, not
    /// the session's.
    SignedOut {
        /// The name signed out.
        name: String,
    },
    /// Anything else (another version of the protocol, damaged tokens...).
    Other,
}

/// The pause before the next reconnection attempt: 0.2 s, doubling up to
/// 5 s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backoff {
    next: Duration,
}

impl Backoff {
    /// The first pause.
    pub const FIRST: Duration = Duration::from_millis(200);
    /// The longest pause.
    pub const MAX: Duration = Duration::from_secs(5);

    /// A backoff at its first pause.
    pub fn new() -> Backoff {
        Backoff { next: Self::FIRST }
    }

    /// The pause to take now; the next one is twice as long (at most
    /// [`Backoff::MAX`]).
    pub fn pause(&mut self) -> Duration {
        let pause = self.next;
        self.next = (pause * 2).min(Self::MAX);
        pause
    }
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff::new()
    }
}

/// Messages the game sends while the connection is down, kept for the next
/// one (moves are kept apart, in [`Resume`]). A `list` is kept once: one
/// answer tells everything, and a burst of them on reconnecting would go
/// over the server's rate limit.
const OUTBOX: usize = 64;

/// A session with a table server. Dropping it closes the connection.
#[derive(Debug)]
pub struct Session {
    target: Target,
    tokens: TokenStore,
    failure: Arc<Mutex<Option<Failure>>>,
    limits: Arc<Mutex<Option<Limits>>>,
    commands: Option<mpsc::UnboundedSender<ClientMessage>>,
    notes: std_mpsc::Receiver<Note>,
    next_id: AtomicU64,
    thread: Option<JoinHandle<()>>,
}

impl Session {
    /// Starts a session with the server at `target` under `name` (or, if
    /// `None`, the name used there most recently, from `tokens`). The token
    /// saved for that name at that server is sent; a new name is registered
    /// and its token saved beside the other names'. Connection trouble is
    /// told by notes, never by an error here.
    pub fn start(target: Target, name: Option<String>, tokens: TokenStore) -> Session {
        let (commands, command_rx) = mpsc::unbounded_channel();
        let (note_tx, notes) = std_mpsc::channel();
        let failed = note_tx.clone();
        let failure = Arc::new(Mutex::new(None));
        let limits = Arc::new(Mutex::new(None));
        let background = Background {
            target: target.clone(),
            name,
            tokens: tokens.clone(),
            commands: command_rx,
            notes: note_tx,
            failure: Arc::clone(&failure),
            limits: Arc::clone(&limits),
        };
        let thread = std::thread::Builder::new()
            .name("table-session".into())
            .spawn(move || background.run());
        let thread = match thread {
            Ok(handle) => Some(handle),
            Err(e) => {
                let _ = failed.send(Note::Connection(Link::Failed(format!(
                    "cannot start the connection's thread: {e}"
                ))));
                None
            }
        };
        Session {
            target,
            tokens,
            failure,
            limits,
            commands: Some(commands),
            notes,
            next_id: AtomicU64::new(first_move_id()),
            thread,
        }
    }

    /// The server.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// A new session with the same server and token file under another
    /// name (after this one's name was refused).
    pub fn renamed(&self, name: String) -> Session {
        Session::start(self.target.clone(), Some(name), self.tokens.clone())
    }

    /// Why the session gave up, once it has ([`Link::Failed`] tells it in
    /// words).
    pub fn failure(&self) -> Option<Failure> {
        self.failure.lock().ok().and_then(|f| f.clone())
    }

    /// The limits of the last `welcome` (the server's `away_seconds`
    /// among them), once a connection was welcomed.
    pub fn limits(&self) -> Option<Limits> {
        self.limits.lock().ok().and_then(|l| *l)
    }

    /// Sends a message (`list`, `create`, `join`, `watch`, `leave`,
    /// `ready`, `rankings`...). While the connection is down it is kept and
    /// sent after the next `welcome` (a `ping` or `hello` is dropped). After
    /// [`Link::Failed`] nothing is sent.
    pub fn send(&self, message: ClientMessage) {
        if let Some(commands) = &self.commands {
            let _ = commands.send(message);
        }
    }

    /// Sends a move for this player's seat at `table` and returns its id,
    /// which the server's `ack` or `error` for it carries. Until then the
    /// move is sent again, with the same id, after each reconnection.
    pub fn play(&self, table: TableId, action: Value) -> u64 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.send(ClientMessage::Move { table, id, action });
        id
    }

    /// The next note, if one is there.
    pub fn try_recv(&self) -> Option<Note> {
        self.notes.try_recv().ok()
    }

    /// The next note, waiting up to `timeout` for it.
    pub fn recv_timeout(&self, timeout: Duration) -> Option<Note> {
        self.notes.recv_timeout(timeout).ok()
    }

    /// Whether the session has stopped (after [`Link::Failed`]).
    pub fn is_ended(&self) -> bool {
        self.commands.as_ref().is_none_or(|c| c.is_closed())
    }
}

/// How long dropping a session waits for its connection to close.
const CLOSING: Duration = Duration::from_secs(2);

impl Drop for Session {
    fn drop(&mut self) {
        // Closing the channel stops the background, which closes the
        // connection politely (within a second) before the thread ends. A
        // connection stuck in a write is left to the thread, so a game
        // never hangs on its way out.
        self.commands = None;
        let deadline = Instant::now() + CLOSING;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.notes.recv_timeout(left) {
                Ok(_) => {}
                Err(std_mpsc::RecvTimeoutError::Disconnected) => {
                    if let Some(thread) = self.thread.take() {
                        let _ = thread.join();
                    }
                    return;
                }
                Err(std_mpsc::RecvTimeoutError::Timeout) => return,
            }
        }
    }
}

/// Move ids start from the clock (microseconds), so a restarted program
/// never reuses an id the server has seen from this seat.
fn first_move_id() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|d| u64::try_from(d.as_micros()).ok())
        .unwrap_or(1)
}

/// Who to say `hello` as.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Identity {
    name: String,
    token: Option<String>,
    /// The server did not know the saved token: it is to be forgotten.
    forgotten: bool,
}

/// The `hello` to send, from the name asked for and what was saved for the
/// server.
fn identity(name: Option<String>, saved: Option<Credentials>) -> Result<Identity, String> {
    match (name, saved) {
        (Some(name), saved) => {
            table_protocol::check_name(&name)?;
            let token = saved.filter(|s| s.name == name).map(|s| s.token);
            Ok(Identity {
                name,
                token,
                forgotten: false,
            })
        }
        (None, Some(saved)) => Ok(Identity {
            name: saved.name,
            token: Some(saved.token),
            forgotten: false,
        }),
        (None, None) => Err(
            "this server does not know you yet and no name was given: choose a name to play under"
                .into(),
        ),
    }
}

/// How a connection attempt ended.
enum Greeting {
    Welcomed(Box<Connection>, Welcome),
    /// Worth trying again later.
    Retry(String),
    /// The connection could not be opened (the sentence, the system's
    /// reason): tried again only by a session that was connected before.
    Unopened(String, String),
    /// Trying again would be refused the same way (the server's reason,
    /// if it refused `hello`).
    GiveUp(String, Option<ErrorCode>),
}

/// Refusals of `hello` that another try would get again.
fn final_refusal(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::Version
            | ErrorCode::NameTaken
            | ErrorCode::BadName
            | ErrorCode::BadToken
            | ErrorCode::Handshake
            | ErrorCode::BadMessage
    )
}

/// How a welcomed connection ended.
enum Served {
    /// It dropped (the reason): the session connects again.
    Dropped(String),
    /// The game stopped the session.
    Stopped,
    /// The player signed out: the session ends.
    SignedOut,
}

/// The background thread's side.
struct Background {
    target: Target,
    name: Option<String>,
    tokens: TokenStore,
    commands: mpsc::UnboundedReceiver<ClientMessage>,
    notes: std_mpsc::Sender<Note>,
    failure: Arc<Mutex<Option<Failure>>>,
    /// The last welcome's limits, for [`Session::limits`].
    limits: Arc<Mutex<Option<Limits>>>,
}

/// What the session keeps across connections.
struct Keep {
    resume: Resume,
    outbox: VecDeque<ClientMessage>,
}

impl Keep {
    /// Takes a message from the game while the connection is down.
    fn hold(&mut self, message: ClientMessage) {
        self.resume.sent(&message);
        match message {
            // A move is kept by `resume`; ping and hello belong to a
            // connection.
            ClientMessage::Move { .. } | ClientMessage::Ping | ClientMessage::Hello { .. } => {}
            other => self.queue(other),
        }
    }

    /// Puts a message in the outbox, unless it is a `list` already there.
    fn queue(&mut self, message: ClientMessage) {
        if message == ClientMessage::List && self.outbox.contains(&message) {
            return;
        }
        if self.outbox.len() == OUTBOX {
            self.outbox.pop_front();
        }
        self.outbox.push_back(message);
    }
}

impl Background {
    fn run(self) {
        let notes = self.notes.clone();
        match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime.block_on(self.session()),
            Err(e) => {
                let _ = notes.send(Note::Connection(Link::Failed(format!(
                    "cannot start the connection's runtime: {e}"
                ))));
            }
        }
    }

    fn note(&self, note: Note) {
        let _ = self.notes.send(note);
    }

    /// Gives up: the failure for the program, then the sentence for the
    /// player.
    fn give_up(&self, failure: Failure, why: String) {
        if let Ok(mut f) = self.failure.lock() {
            *f = Some(failure);
        }
        self.note(Note::Connection(Link::Failed(why)));
    }

    async fn session(mut self) {
        let saved = match &self.name {
            Some(name) => self.tokens.named(&self.target, name),
            None => self.tokens.get(&self.target),
        };
        let saved = match saved {
            Ok(saved) => saved,
            Err(e) => return self.give_up(Failure::Other, e.to_string()),
        };
        let asked = self.name.clone();
        let mut who = match identity(self.name.take(), saved) {
            Ok(who) => who,
            Err(why) => {
                let failure = match asked {
                    Some(name) => Failure::BadName { name },
                    None => Failure::Other,
                };
                return self.give_up(failure, why);
            }
        };
        let mut keep = Keep {
            resume: Resume::new(),
            outbox: VecDeque::new(),
        };
        let mut backoff = Backoff::new();
        let mut attempt = 0;
        // Retrying only makes sense for a server that was there: a wrong
        // address or a server not started would be tried forever.
        let mut connected_once = false;
        loop {
            let greeting = tokio::select! {
                g = greet(&self.target, &mut who) => g,
                () = hold_until_stopped(&mut self.commands, &mut keep) => return,
            };
            if std::mem::take(&mut who.forgotten) {
                // The server says the token is unknown: it proves nothing
                // any more. A failure here only leaves a useless entry.
                let _ = self.tokens.remove(&self.target, &who.name);
            }
            let why = match greeting {
                Greeting::Welcomed(conn, welcome) => {
                    connected_once = true;
                    attempt = 0;
                    backoff = Backoff::new();
                    self.welcomed(&mut who, &welcome);
                    match self.serve(*conn, &welcome, &mut who, &mut keep).await {
                        Served::Dropped(why) => why,
                        Served::Stopped => return,
                        Served::SignedOut => {
                            let name = who.name.clone();
                            let why = format!(
                                "you signed out of {} as {name}: the server revoked the name's token and it is forgotten here",
                                self.target
                            );
                            return self.give_up(Failure::SignedOut { name }, why);
                        }
                    }
                }
                Greeting::Retry(why) => why,
                Greeting::Unopened(why, _) if connected_once => why,
                Greeting::Unopened(why, reason) => {
                    return self.give_up(Failure::Unreachable { reason }, why);
                }
                Greeting::GiveUp(why, code) => {
                    let name = who.name.clone();
                    return match code {
                        Some(ErrorCode::NameTaken) => {
                            let why = self.name_taken(&name);
                            self.give_up(Failure::NameTaken { name }, why)
                        }
                        Some(ErrorCode::BadName) => self.give_up(Failure::BadName { name }, why),
                        _ => self.give_up(Failure::Other, why),
                    };
                }
            };
            attempt += 1;
            self.note(Note::Connection(Link::Reconnecting { attempt, why }));
            tokio::select! {
                () = tokio::time::sleep(backoff.pause()) => {}
                () = hold_until_stopped(&mut self.commands, &mut keep) => return,
            }
        }
    }

    /// The refusal of a taken name, with where its token may be: the same
    /// server reached by another address (its socket besides its host and
    /// port) has another entry in the token file.
    fn name_taken(&self, name: &str) -> String {
        let taken = format!(
            "the name {name:?} is taken at {}: another player has it",
            self.target
        );
        let elsewhere = self
            .tokens
            .elsewhere(&self.target, name)
            .unwrap_or_default();
        if elsewhere.is_empty() {
            format!("{taken}, or it is yours under an address this program has no token for")
        } else {
            format!(
                "{taken}, unless {} is this same server: a token for {name:?} is kept for it, \
                 and connecting with that address uses it",
                elsewhere.join(" or ")
            )
        }
    }

    /// Keeps the name and token the server gave, and tells the game.
    fn welcomed(&self, who: &mut Identity, welcome: &Welcome) {
        who.name.clone_from(&welcome.name);
        who.token = Some(welcome.token.clone());
        if let Ok(mut limits) = self.limits.lock() {
            *limits = Some(welcome.limits);
        }
        let credentials = Credentials {
            name: welcome.name.clone(),
            token: welcome.token.clone(),
        };
        self.note(Note::Connection(Link::Connected));
        if let Err(e) = self.tokens.set(&self.target, credentials) {
            self.note(Note::Connection(Link::Warning(format!(
                "playing on, but the name will not be recognised next time: {e}"
            ))));
        }
        self.note(Note::Message(welcome.clone().into()));
    }

    /// A new token from the server (`new_token`): kept, for this
    /// connection's next `hello` and the next run's.
    fn new_token(&self, who: &mut Identity, token: &str) {
        who.token = Some(token.to_string());
        let credentials = Credentials {
            name: who.name.clone(),
            token: token.to_string(),
        };
        if let Err(e) = self.tokens.set(&self.target, credentials) {
            self.note(Note::Connection(Link::Warning(format!(
                "the new token could not be kept: the name will not be recognised next time: {e}"
            ))));
        }
    }

    /// Runs a welcomed connection until it drops, the game stops the
    /// session or the player signs out.
    async fn serve(
        &mut self,
        mut conn: Connection,
        welcome: &Welcome,
        who: &mut Identity,
        keep: &mut Keep,
    ) -> Served {
        for message in keep.resume.after_welcome() {
            if let Err(e) = conn.send(&message).await {
                return Served::Dropped(e.to_string());
            }
        }
        // Each held message leaves the outbox only once sent.
        while let Some(message) = keep.outbox.front() {
            if let Err(e) = conn.send(message).await {
                return Served::Dropped(e.to_string());
            }
            keep.outbox.pop_front();
        }
        let idle = Duration::from_secs(welcome.limits.idle_seconds.max(3));
        let period = idle / 3;
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut heard = Instant::now();
        // Pongs answering the session's own pings are not the game's news.
        let mut own_pings = 0u32;
        loop {
            tokio::select! {
                command = self.commands.recv() => {
                    let Some(message) = command else {
                        conn.close().await;
                        return Served::Stopped;
                    };
                    keep.resume.sent(&message);
                    if let Err(e) = conn.send(&message).await {
                        if !matches!(message, ClientMessage::Move { .. }) {
                            keep.queue(message);
                        }
                        return Served::Dropped(e.to_string());
                    }
                }
                incoming = conn.recv() => {
                    let message = match incoming {
                        Ok(message) => message,
                        Err(e) => return Served::Dropped(e.to_string()),
                    };
                    heard = Instant::now();
                    if message == ServerMessage::Pong && own_pings > 0 {
                        own_pings -= 1;
                        continue;
                    }
                    match &message {
                        ServerMessage::Token { token } => self.new_token(who, token),
                        ServerMessage::SignedOut => {
                            // The token proves nothing any more: forgotten
                            // before anything else can send it.
                            if let Err(e) = self.tokens.remove(&self.target, &who.name) {
                                self.note(Note::Connection(Link::Warning(format!(
                                    "the revoked token could not be forgotten here: {e}"
                                ))));
                            }
                            who.token = None;
                            self.note(Note::Message(message));
                            conn.close().await;
                            return Served::SignedOut;
                        }
                        _ => {}
                    }
                    keep.resume.received(&message);
                    self.note(Note::Message(message));
                }
                _ = ticks.tick() => {
                    if heard.elapsed() >= idle {
                        return Served::Dropped(format!(
                            "the table server has not answered for {} s",
                            idle.as_secs()
                        ));
                    }
                    if let Err(e) = conn.send(&ClientMessage::Ping).await {
                        return Served::Dropped(e.to_string());
                    }
                    own_pings += 1;
                }
            }
        }
    }
}

/// Opens a connection and says `hello`. A token the server does not know
/// any more (its records were reset) is dropped (marked forgotten, for the
/// caller to remove from the file) and the name asked for afresh.
async fn greet(target: &Target, who: &mut Identity) -> Greeting {
    let mut conn = match Connection::open(target).await {
        Ok(conn) => conn,
        // Another try would be refused the same way: a certificate not to
        // be trusted stays so (and a session must not keep knocking at
        // what may be somebody else's server).
        Err(
            e @ (ClientError::NoUnixSockets
            | ClientError::Certificate { .. }
            | ClientError::Authority { .. }),
        ) => {
            return Greeting::GiveUp(e.to_string(), None);
        }
        Err(e) => {
            let reason = match &e {
                ClientError::Unreachable { reason, .. } | ClientError::Handshake { reason, .. } => {
                    reason.clone()
                }
                other => other.to_string(),
            };
            return Greeting::Unopened(e.to_string(), reason);
        }
    };
    // A token is kept per server; one kept for "this machine" goes only
    // to a connection that did reach this machine.
    let trusted = conn.reaches_its_target();
    loop {
        let token = who.token.as_deref().filter(|_| trusted);
        match conn.hello(Some(&who.name), token).await {
            Ok(welcome) => return Greeting::Welcomed(Box::new(conn), welcome),
            Err(ClientError::Refused(body))
                if body.code == ErrorCode::BadToken && token.is_some() =>
            {
                who.token = None;
                who.forgotten = true;
            }
            Err(ClientError::Refused(body)) if final_refusal(body.code) => {
                return Greeting::GiveUp(
                    format!(
                        "the table server at {target} refused {:?}: {}",
                        who.name, body.message
                    ),
                    Some(body.code),
                );
            }
            Err(e) => return Greeting::Retry(e.to_string()),
        }
    }
}

/// Takes the game's messages while there is no connection; returns when the
/// game drops the session.
async fn hold_until_stopped(
    commands: &mut mpsc::UnboundedReceiver<ClientMessage>,
    keep: &mut Keep,
) {
    while let Some(message) = commands.recv().await {
        keep.hold(message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_five_seconds() {
        let mut b = Backoff::new();
        let pauses: Vec<u128> = (0..8).map(|_| b.pause().as_millis()).collect();
        assert_eq!(pauses, [200, 400, 800, 1600, 3200, 5000, 5000, 5000]);
    }

    fn saved(name: &str, token: &str) -> Option<Credentials> {
        Some(Credentials {
            name: name.into(),
            token: token.into(),
        })
    }

    #[test]
    fn the_saved_token_goes_with_its_own_name_only() {
        assert_eq!(
            identity(Some("ann".into()), saved("ann", "t")),
            Ok(Identity {
                name: "ann".into(),
                token: Some("t".into()),
                forgotten: false,
            })
        );
        assert_eq!(
            identity(Some("bob".into()), saved("ann", "t")),
            Ok(Identity {
                name: "bob".into(),
                token: None,
                forgotten: false,
            })
        );
        assert_eq!(
            identity(None, saved("ann", "t")),
            Ok(Identity {
                name: "ann".into(),
                token: Some("t".into()),
                forgotten: false,
            })
        );
        assert!(identity(None, None).is_err_and(|e| e.contains("choose a name")));
        assert!(identity(Some(" x".into()), None).is_err_and(|e| e.contains("space")));
    }

    #[test]
    fn messages_held_offline_wait_for_the_next_connection() {
        let mut keep = Keep {
            resume: Resume::new(),
            outbox: VecDeque::new(),
        };
        keep.hold(ClientMessage::List);
        keep.hold(ClientMessage::Ping);
        keep.hold(ClientMessage::Move {
            table: 1,
            id: 5,
            action: Value::from("draw"),
        });
        assert_eq!(keep.outbox, [ClientMessage::List]);
        assert_eq!(keep.resume.pending().len(), 1);
        // A lobby refreshing while offline asks for one list, not dozens.
        for _ in 0..40 {
            keep.hold(ClientMessage::List);
        }
        keep.hold(ClientMessage::Ready { table: 2 });
        keep.hold(ClientMessage::List);
        assert_eq!(
            keep.outbox,
            [ClientMessage::List, ClientMessage::Ready { table: 2 }]
        );
        for _ in 0..OUTBOX + 3 {
            keep.hold(ClientMessage::Ready { table: 2 });
        }
        assert_eq!(keep.outbox.len(), OUTBOX);
        assert_eq!(
            keep.outbox.front(),
            Some(&ClientMessage::Ready { table: 2 })
        );
    }
}
