//! `mille bot --connect`: a built-in level plays as a bot account at a
//! table server. It owns the connection loop (sign in as a bot, reconnect
//! with backoff, keep the token), and [`Seats`], the state of every table
//! it plays: what to send for each message from the server, and the
//! decisions handed to a thread of their own (a search may take a quarter
//! of a second, which the connection must not wait for).
//!
//! Every decision is made from the seat's observation alone, as the
//! server's own computer seats are: the bot is shown the moves between two
//! of its decisions as the bot protocol's `mille bot` rebuilds them from
//! two views ([`mille_engine::history::moves_between`]).

use anyhow::{Context, anyhow};
use mille_ai::{Level, MilleBot, make_bot};
use mille_engine::history::{HistoryError, moves_between};
use mille_engine::view::Decision;
use mille_engine::{Action, Event, Observation, PhaseView, View};
use std::collections::HashMap;
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;
use table_client::protocol::{
    BotInfo, ClientMessage, ErrorCode, GameKind, SeatRef, ServerMessage, TableId,
};
use table_client::{Backoff, ClientError, Connection, Credentials, Target, TokenStore, Welcome};
use tokio::sync::{mpsc, watch};

/// What `mille bot --connect` was asked to be.
#[derive(Debug)]
pub struct Options {
    /// The server.
    pub target: Target,
    /// The bot's name there.
    pub name: String,
    /// The level that decides.
    pub level: Level,
    /// Seeds the level's random choices (mixed with each table's number).
    pub seed: u64,
    /// What the bot says of itself in `hello`.
    pub info: BotInfo,
    /// Where its token is kept.
    pub tokens: TokenStore,
}

/// Plays at `options.target` until interrupted (Ctrl-C or SIGTERM: exit
/// 0) or refused for good (the name is a person's, or another's).
pub fn run(options: Options) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the bot's runtime")?;
    runtime.block_on(serve(options))
}

/// Writes a line on standard error (never panics when it is closed).
fn log(line: &str) {
    let _ = writeln!(std::io::stderr(), "mille bot: {line}");
}

/// Sets the channel's value when the process is asked to stop.
fn catch_signals(stop: watch::Sender<bool>) -> anyhow::Result<()> {
    #[cfg(unix)]
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .context("cannot catch SIGTERM")?;
    tokio::spawn(async move {
        #[cfg(unix)]
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
        let _ = stop.send(true);
    });
    Ok(())
}

async fn serve(options: Options) -> anyhow::Result<()> {
    let (stop_tx, mut stop) = watch::channel(false);
    catch_signals(stop_tx)?;
    let (done_tx, mut done) = mpsc::unbounded_channel();
    let mut seats = Seats::new(options.level, options.seed);
    let mut backoff = Backoff::new();
    let mut welcomed_once = false;
    loop {
        let end = connection(
            &options,
            &mut seats,
            &done_tx,
            &mut done,
            &mut stop,
            &mut welcomed_once,
        )
        .await?;
        let why = match end {
            End::Stopped => break,
            End::Dropped { why, welcomed } => {
                if welcomed {
                    backoff = Backoff::new();
                }
                why
            }
        };
        let pause = backoff.pause();
        log(&format!(
            "{why}; connecting again in {:.1} s",
            pause.as_secs_f64()
        ));
        tokio::select! {
            _ = tokio::time::sleep(pause) => {}
            _ = stop.changed() => break,
        }
    }
    log("stopped");
    Ok(())
}

/// How a connection ended.
enum End {
    /// Asked to stop.
    Stopped,
    /// It dropped (or could not be made): try again.
    Dropped {
        /// Why, in words.
        why: String,
        /// Whether it had been welcomed (the backoff starts afresh).
        welcomed: bool,
    },
}

/// One connection: sign in, then play until it drops or the process is
/// asked to stop. An error is a refusal another try would get again.
async fn connection(
    options: &Options,
    seats: &mut Seats,
    done_tx: &mpsc::UnboundedSender<Decided>,
    done: &mut mpsc::UnboundedReceiver<Decided>,
    stop: &mut watch::Receiver<bool>,
    welcomed_once: &mut bool,
) -> anyhow::Result<End> {
    let target = &options.target;
    let dropped = |why: String| End::Dropped {
        why,
        welcomed: false,
    };
    let opened = tokio::select! {
        opened = Connection::open(target) => opened,
        _ = stop.changed() => return Ok(End::Stopped),
    };
    let mut conn = match opened {
        Ok(conn) => conn,
        // A bot never connected is more likely misdirected than cut off.
        Err(ClientError::Unreachable { reason, .. }) if !*welcomed_once => {
            return Err(anyhow!(target.unreachable(&reason, "mille")));
        }
        Err(e) if !*welcomed_once => return Err(e.into()),
        Err(e) => return Ok(dropped(e.to_string())),
    };
    let signed = tokio::select! {
        signed = sign_in(options, &mut conn) => signed,
        _ = stop.changed() => return Ok(End::Stopped),
    };
    let welcome = match signed {
        Ok(welcome) => welcome,
        Err(ClientError::Refused(body)) if final_refusal(body.code) => {
            return Err(anyhow!(
                "the table server at {target} refused {:?}: {}",
                options.name,
                body.message
            ));
        }
        Err(e) => return Ok(dropped(e.to_string())),
    };
    *welcomed_once = true;
    let dropped = |why: String| End::Dropped {
        why,
        welcomed: true,
    };
    log(&format!(
        "signed in at {target} as {} (level {})",
        welcome.name, options.level
    ));
    if !welcome.bot {
        log("warning: this server does not take the name as a bot's: invitations may never come");
    }
    let every = Duration::from_secs((welcome.limits.idle_seconds / 3).clamp(1, 30));
    let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    let mut steps = seats.welcome(&welcome);
    let mut pace = Pace::new(welcome.limits.messages_per_second, welcome.limits.burst);
    loop {
        let taken = take_steps(
            std::mem::take(&mut steps),
            async |m: &ClientMessage| {
                pace.wait().await;
                conn.send(m).await
            },
            done_tx,
        )
        .await;
        if let Err(why) = taken {
            return Ok(dropped(why));
        }
        tokio::select! {
            _ = stop.changed() => {
                conn.close().await;
                return Ok(End::Stopped);
            }
            message = conn.recv() => match message {
                Ok(message) => steps = seats.on_message(message),
                Err(e) => return Ok(dropped(e.to_string())),
            },
            Some(decided) = done.recv() => steps = seats.decided(decided),
            _ = ping.tick() => steps = vec![Step::Send(ClientMessage::Ping)],
        }
    }
}

/// Keeps the bot's messages within the rate the server announced: a
/// message over it is dropped, and a dropped move would leave the bot
/// waiting for an answer until its decision time runs out. A bot playing
/// another program with no pause between moves reaches the rate at once.
struct Pace {
    /// Messages a second, a little under the server's average.
    rate: f64,
    /// Messages that may go at once, under the server's burst.
    burst: f64,
    tokens: f64,
    at: tokio::time::Instant,
}

impl Pace {
    fn new(per_second: u32, burst: u32) -> Pace {
        let burst = f64::from(burst.max(2) / 2);
        Pace {
            rate: (f64::from(per_second.max(1)) * 0.9).max(0.5),
            burst,
            tokens: burst,
            at: tokio::time::Instant::now(),
        }
    }

    /// Waits until one more message keeps within the rate, and counts it.
    async fn wait(&mut self) {
        let now = tokio::time::Instant::now();
        self.tokens =
            (self.tokens + now.duration_since(self.at).as_secs_f64() * self.rate).min(self.burst);
        self.at = now;
        if self.tokens < 1.0 {
            let short = Duration::from_secs_f64((1.0 - self.tokens) / self.rate);
            tokio::time::sleep(short).await;
            self.at += short;
            self.tokens = 1.0;
        }
        self.tokens -= 1.0;
    }
}

/// Takes `steps` in order: sends with `send`, hands decisions to a thread
/// (their answers come back through `done`), logs. Every step is taken
/// even after a failed send (then the error): a decision under way holds
/// its table's bot, which must come back.
async fn take_steps(
    steps: Vec<Step>,
    mut send: impl AsyncFnMut(&ClientMessage) -> Result<(), ClientError>,
    done: &mpsc::UnboundedSender<Decided>,
) -> Result<(), String> {
    let mut broken = None;
    for step in steps {
        match step {
            Step::Send(message) => {
                if broken.is_none()
                    && let Err(e) = send(&message).await
                {
                    broken = Some(e.to_string());
                }
            }
            Step::Think(job) => {
                let done = done.clone();
                tokio::task::spawn_blocking(move || {
                    let _ = done.send(think(*job));
                });
            }
            Step::Log(line) => log(&line),
        }
    }
    broken.map_or(Ok(()), Err)
}

/// Refusals of `hello` that another try would get again (the server being
/// unavailable for a moment is not one).
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

/// `hello` as a bot, with the token kept for the name at this server (a
/// new name registers, and its token is kept).
async fn sign_in(options: &Options, conn: &mut Connection) -> Result<Welcome, ClientError> {
    let target = &options.target;
    let saved = match options.tokens.named(target, &options.name) {
        Ok(saved) => saved,
        Err(e) => {
            log(&format!("warning: {e}"));
            None
        }
    };
    // A token kept for this machine goes only where this machine is.
    let token = saved.filter(|_| conn.reaches_its_target()).map(|c| c.token);
    let info = Some(options.info.clone());
    let mut welcome = conn
        .hello_as(Some(&options.name), token.as_deref(), info.clone())
        .await;
    if let Err(ClientError::Refused(body)) = &welcome
        && body.code == ErrorCode::BadToken
        && token.is_some()
    {
        // The server no longer knows the token (its database was
        // reset): the name is registered afresh, if nobody took it.
        log(&format!(
            "the server no longer knows this bot's token: registering {:?} again",
            options.name
        ));
        let _ = options.tokens.remove(target, &options.name);
        welcome = conn.hello_as(Some(&options.name), None, info).await;
    }
    let welcome = welcome?;
    if token.as_deref() != Some(welcome.token.as_str()) {
        let kept = Credentials {
            name: welcome.name.clone(),
            token: welcome.token.clone(),
        };
        if let Err(e) = options.tokens.set(target, kept) {
            log(&format!("warning: {e}"));
        }
    }
    Ok(welcome)
}

/// What [`Seats`] asks the connection loop to do.
#[derive(Debug)]
pub enum Step {
    /// Send this.
    Send(ClientMessage),
    /// Make this decision off the runtime; its [`Decided`] comes back to
    /// [`Seats::decided`].
    Think(Box<Job>),
    /// Write this line on standard error.
    Log(String),
}

/// The bot's last decision at a table: its view, what it was asked and its
/// answer, from which the moves until its next decision are rebuilt.
type Memory = (View, Decision, Action);

/// Which observation a decision was made for: the table's sequence number
/// and what the game waited for (a coup-fourré chance that passes keeps
/// the number but changes the status).
type Key = (u64, PhaseView);

/// A decision to make.
pub struct Job {
    table: TableId,
    key: Key,
    bot: Box<MilleBot>,
    memory: Option<Memory>,
    observation: Observation,
    /// To make a fresh bot if this one fails.
    level: Level,
    seed: u64,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("table", &self.table)
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// A decision made.
pub struct Decided {
    table: TableId,
    key: Key,
    bot: Box<MilleBot>,
    memory: Option<Memory>,
    action: Action,
}

/// Makes the decision: shows the bot the moves since its last one, then
/// asks it. A bot that fails or panics is replaced by a fresh one, and the
/// first legal action is played (the seat must not stall).
pub fn think(job: Job) -> Decided {
    let Job {
        table,
        key,
        bot,
        memory,
        observation,
        level,
        seed,
    } = job;
    let first_legal = observation.legal.first().copied().unwrap_or(Action::Draw);
    let made = catch_unwind(AssertUnwindSafe(move || {
        let mut bot = bot;
        let decision = observation.decision();
        // Rebuilding the moves is a search: only for a bot that reads them.
        if let (Some(decision), Some(last), true) = (decision, memory, bot.watches()) {
            catch_up(bot.as_mut(), last, &observation.view, decision);
        }
        let action = bot
            .decide(&observation)
            .ok()
            .filter(|a| observation.legal.contains(a));
        let memory = decision.zip(action).map(|(d, a)| (observation.view, d, a));
        (bot, memory, action)
    }));
    match made {
        Ok((bot, memory, Some(action))) => Decided {
            table,
            key,
            bot,
            memory,
            action,
        },
        Ok((bot, _, None)) => Decided {
            table,
            key,
            bot,
            memory: None,
            action: first_legal,
        },
        Err(_) => Decided {
            table,
            key,
            bot: make_bot(level, seed),
            memory: None,
            action: first_legal,
        },
    }
}

/// Shows `bot` what happened between its last decision and `view`, as
/// `mille bot` does over the bot protocol: every move in order within a
/// hand, a new hand when the views are of two.
fn catch_up(bot: &mut MilleBot, (first, asked, answer): Memory, view: &View, decision: Decision) {
    match moves_between(&first, asked, answer, view, decision) {
        Ok(moves) => {
            for m in moves {
                let before = Observation::from_view(m.before, Decision::Turn, Vec::new());
                bot.watch(&before, Some(usize::from(m.actor)), m.action);
            }
        }
        Err(HistoryError::OtherHand) => {
            let before = Observation::from_view(first, asked, Vec::new());
            bot.watch(&before, None, Action::NextHand);
        }
        // Views no legal moves join: the bot keeps what it knew.
        Err(HistoryError::Unexplained) => {}
    }
}

/// A move sent and not yet answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pending {
    id: u64,
    action: Action,
}

/// One table the bot plays.
struct Seat {
    /// `None` while it thinks.
    bot: Option<Box<MilleBot>>,
    seed: u64,
    memory: Option<Memory>,
    /// The last observation and its sequence number.
    observation: Option<(u64, Observation)>,
    /// The observation last decided on.
    acted: Option<Key>,
    /// Moves the server refused at that observation.
    refused: Vec<Action>,
    /// Whether to make up for the last refusal with another move at once
    /// (not after `not_your_turn` or `waiting`: the next update tells).
    retry: bool,
    pending: Option<Pending>,
    /// Whether this connection holds the seat (after `joined`).
    joined: bool,
    /// The hand the bot said `ready` after.
    ready_after: Option<u32>,
}

/// Every table the bot plays, and what to send for each message.
pub struct Seats {
    level: Level,
    seed: u64,
    tables: HashMap<TableId, Seat>,
    next_id: u64,
}

impl Seats {
    /// No table yet.
    pub fn new(level: Level, seed: u64) -> Seats {
        Seats {
            level,
            seed,
            tables: HashMap::new(),
            // Move ids from the clock: a restarted bot never reuses one.
            next_id: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .ok()
                .and_then(|d| u64::try_from(d.as_micros()).ok())
                .unwrap_or(1),
        }
    }

    /// After `welcome`: back to every seat it lists; the tables it no
    /// longer lists ended while the bot was away.
    pub fn welcome(&mut self, welcome: &Welcome) -> Vec<Step> {
        let mut steps = Vec::new();
        let listed: Vec<TableId> = welcome.seats.iter().map(|s| s.table).collect();
        self.tables.retain(|table, _| {
            let kept = listed.contains(table);
            if !kept {
                steps.push(Step::Log(format!("table {table}: ended while away")));
            }
            kept
        });
        for seat in self.tables.values_mut() {
            seat.joined = false;
        }
        for &SeatRef { table, game, seat } in &welcome.seats {
            if game == GameKind::Mille {
                steps.push(Step::Send(ClientMessage::Join {
                    table,
                    seat: Some(seat),
                    code: None,
                    since: None,
                }));
            }
        }
        steps
    }

    /// What to do about a message from the server.
    pub fn on_message(&mut self, message: ServerMessage) -> Vec<Step> {
        let mut steps = Vec::new();
        match message {
            ServerMessage::Invited { table, by, .. } => {
                let answer = if table.game == GameKind::Mille {
                    ClientMessage::Accept { table: table.id }
                } else {
                    steps.push(Step::Log(format!(
                        "table {}: declined {}'s invitation to a game of {}",
                        table.id,
                        by,
                        table.game.name()
                    )));
                    ClientMessage::Decline {
                        table: table.id,
                        reason: Some("I play mille only".into()),
                    }
                };
                steps.push(Step::Send(answer));
            }
            ServerMessage::Joined {
                table,
                seat,
                seq,
                observation,
            } => {
                let (level, seed) = (self.level, table_seed(self.seed, table));
                let place = self.tables.entry(table).or_insert_with(|| Seat {
                    bot: Some(make_bot(level, seed)),
                    seed,
                    memory: None,
                    observation: None,
                    acted: None,
                    refused: Vec::new(),
                    retry: false,
                    pending: None,
                    joined: false,
                    ready_after: None,
                });
                let first = place.observation.is_none();
                place.joined = true;
                place.ready_after = None;
                if let Some(p) = place.pending {
                    // Sent again with its id: applied at most once.
                    steps.push(Step::Send(move_message(table, p)));
                }
                match read(observation) {
                    Ok(o) => {
                        if first {
                            steps.push(Step::Log(starting(table, seat, &o)));
                        }
                        self.observe(table, seq, o, &mut steps);
                    }
                    Err(why) => steps.push(Step::Log(format!("table {table}: {why}"))),
                }
            }
            ServerMessage::Update {
                table,
                seq,
                observation,
                ..
            } if self.tables.contains_key(&table) => match read(observation) {
                Ok(o) => self.observe(table, seq, o, &mut steps),
                Err(why) => steps.push(Step::Log(format!("table {table}: {why}"))),
            },
            ServerMessage::Ack { table, id, .. } => {
                if let Some(place) = self.tables.get_mut(&table)
                    && place.pending.is_some_and(|p| p.id == id)
                {
                    place.pending = None;
                    self.act(table, &mut steps);
                }
            }
            ServerMessage::Error(body) => self.refused(body, &mut steps),
            ServerMessage::Ended { tables } => {
                for t in tables {
                    steps.push(Step::Log(format!("table {}: {}", t.table, t.message)));
                }
            }
            // Lists, other tables' news, answers the bot never asks for.
            _ => {}
        }
        steps
    }

    /// A decision came back from its thread.
    pub fn decided(&mut self, decided: Decided) -> Vec<Step> {
        let mut steps = Vec::new();
        let Decided {
            table,
            key,
            bot,
            memory,
            action,
        } = decided;
        let Some(place) = self.tables.get_mut(&table) else {
            return steps;
        };
        place.bot = Some(bot);
        let current = place.observation.as_ref().map(|(seq, o)| (*seq, o.status));
        if current == Some(key) {
            place.memory = memory;
            self.send_move(table, action, &mut steps);
        } else {
            // The table moved on while the bot thought (a chance passed, a
            // stand-in played): decide again on what it shows now.
            place.memory = None;
            place.acted = None;
            self.act(table, &mut steps);
        }
        steps
    }

    /// A new observation of `table`.
    fn observe(&mut self, table: TableId, seq: u64, o: Observation, steps: &mut Vec<Step>) {
        if o.status == PhaseView::GameOver {
            steps.push(Step::Log(ending(table, &o)));
            self.tables.remove(&table);
            return;
        }
        if let Some(place) = self.tables.get_mut(&table) {
            place.observation = Some((seq, o));
            self.act(table, steps);
        }
    }

    /// Whatever the seat has to do now: be ready for the next hand, draw,
    /// or decide (on a thread).
    fn act(&mut self, table: TableId, steps: &mut Vec<Step>) {
        let (level, next_move) = (self.level, &mut self.next_id);
        let Some(place) = self.tables.get_mut(&table) else {
            return;
        };
        if !place.joined {
            return;
        }
        let Some((seq, o)) = &place.observation else {
            return;
        };
        if o.status == PhaseView::HandOver {
            if place.ready_after != Some(o.hand_number) {
                place.ready_after = Some(o.hand_number);
                steps.push(Step::Send(ClientMessage::Ready { table }));
            }
            return;
        }
        if o.legal.is_empty() || place.pending.is_some() {
            return;
        }
        let key = (*seq, o.status);
        let action = if place.acted == Some(key) {
            // Already decided here: only a refused move is made up for,
            // with a legal one not refused yet.
            if !std::mem::take(&mut place.retry) {
                return;
            }
            match o.legal.iter().find(|a| !place.refused.contains(a)) {
                Some(&a) => a,
                None => return,
            }
        } else if o.decision().is_none() {
            // The draw: nothing to decide.
            place.acted = Some(key);
            place.refused.clear();
            place.retry = false;
            Action::Draw
        } else {
            let Some(bot) = place.bot.take() else {
                // Thinking already: its answer is checked against what the
                // table shows then.
                return;
            };
            place.acted = Some(key);
            place.refused.clear();
            place.retry = false;
            steps.push(Step::Think(Box::new(Job {
                table,
                key,
                bot,
                memory: place.memory.take(),
                observation: o.clone(),
                level,
                seed: place.seed,
            })));
            return;
        };
        *next_move += 1;
        let p = Pending {
            id: *next_move,
            action,
        };
        place.pending = Some(p);
        steps.push(Step::Send(move_message(table, p)));
    }

    /// Sends `action` at `table` (kept until answered, and sent again after
    /// a reconnection).
    fn send_move(&mut self, table: TableId, action: Action, steps: &mut Vec<Step>) {
        let Some(place) = self.tables.get_mut(&table) else {
            return;
        };
        self.next_id += 1;
        let p = Pending {
            id: self.next_id,
            action,
        };
        place.pending = Some(p);
        if place.joined {
            steps.push(Step::Send(move_message(table, p)));
        }
    }

    /// The server refused something.
    fn refused(&mut self, body: table_client::protocol::ErrorBody, steps: &mut Vec<Step>) {
        let Some(table) = body.table else {
            steps.push(Step::Log(format!("the server says: {}", body.message)));
            return;
        };
        let Some(place) = self.tables.get_mut(&table) else {
            // An invitation that could not be taken (gone, taken, over).
            steps.push(Step::Log(format!("table {table}: {}", body.message)));
            return;
        };
        if body.code == ErrorCode::GameOver {
            steps.push(Step::Log(format!("table {table}: {}", body.message)));
            self.tables.remove(&table);
            return;
        }
        match (body.id, place.pending) {
            (Some(id), Some(p)) if p.id == id => {
                place.pending = None;
                if matches!(body.code, ErrorCode::NotYourTurn | ErrorCode::Waiting) {
                    // Too early (the game waits for a seat to be taken) or
                    // overtaken (a coup fourré): the table's next update
                    // shows the seat what to do then, the same or not.
                    place.acted = None;
                    place.retry = false;
                } else {
                    // Refused by the rules: another legal move at once.
                    place.retry = true;
                    place.refused.push(p.action);
                    steps.push(Step::Log(format!(
                        "table {table}: the move \"{}\" was refused: {}",
                        p.action, body.message
                    )));
                    self.act(table, steps);
                }
            }
            (Some(_), _) => {}
            (None, _) if !place.joined => {
                steps.push(Step::Log(format!("table {table}: {}", body.message)));
                self.tables.remove(&table);
            }
            (None, _) => steps.push(Step::Log(format!("table {table}: {}", body.message))),
        }
    }
}

/// Each table's bot gets its own seed, from the bot's and the table's.
fn table_seed(seed: u64, table: TableId) -> u64 {
    seed ^ table.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

fn move_message(table: TableId, p: Pending) -> ClientMessage {
    ClientMessage::Move {
        table,
        id: p.id,
        action: serde_json::Value::String(p.action.to_string()),
    }
}

/// A mille observation from the server's JSON.
fn read(observation: serde_json::Value) -> Result<Observation, String> {
    serde_json::from_value(observation).map_err(|e| {
        format!("the observation cannot be read ({e}): is the server another version?")
    })
}

/// The sides' names ("ann & bob"), by team.
fn sides(o: &Observation) -> Vec<String> {
    o.view
        .teams
        .iter()
        .map(|t| {
            let names: Vec<&str> = o
                .view
                .seats
                .iter()
                .filter(|s| s.team == t.team)
                .filter_map(|s| o.seat_info.get(usize::from(s.seat)))
                .map(|i| i.name.as_str())
                .collect();
            names.join(" & ")
        })
        .collect()
}

/// The line that says a table starts (or that the bot sits there again).
fn starting(table: TableId, seat: usize, o: &Observation) -> String {
    let others: Vec<&str> = o
        .seat_info
        .iter()
        .enumerate()
        .filter(|&(s, _)| s != seat)
        .map(|(_, i)| i.name.as_str())
        .collect();
    format!(
        "table {table}: playing seat {} at {}, {} players, against {}",
        seat + 1,
        o.config.rules.id(),
        o.config.players,
        others.join(", ")
    )
}

/// The line that says how a table ended.
fn ending(table: TableId, o: &Observation) -> String {
    let mine = o
        .seat()
        .and_then(|s| o.view.seats.get(usize::from(s)))
        .map(|s| s.team);
    let winners = o.events.iter().rev().find_map(|e| match e {
        Event::GameOver { winners } => Some(winners.clone()),
        _ => None,
    });
    let verdict = match (mine, winners) {
        (Some(m), Some(w)) if w.contains(&m) => "won",
        (Some(_), Some(_)) => "lost",
        _ => "over",
    };
    let scores: Vec<String> = sides(o)
        .into_iter()
        .zip(&o.view.teams)
        .map(|(names, t)| format!("{names} {}", t.score.game + t.score.hand))
        .collect();
    format!("table {table}: game {verdict}: {}", scores.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mille_engine::{GameConfig, Seat as EngineSeat, State, ToAct};
    use serde_json::{Value, json};
    use table_client::protocol::{ErrorBody, Limits, TableStatus, TableSummary};

    const T: TableId = 7;

    fn seat0() -> EngineSeat {
        mille_engine::Rules::new(GameConfig::default())
            .ok()
            .and_then(|r| r.seat(0))
            .expect("seat 0")
    }

    fn seats() -> Seats {
        Seats::new(Level::Random, 1)
    }

    /// A bsd game's observation for seat 0, once `until` holds (moves by
    /// seat 0's `random` bot and seat 1's `classic`).
    fn state_until(seed: u64, until: impl Fn(&State) -> bool) -> State {
        let mut state = State::new(GameConfig::default(), seed).expect("a game");
        let mut bots = [make_bot(Level::Random, 3), make_bot(Level::Classic, 4)];
        while !until(&state) {
            let action = match state.to_act() {
                ToAct::Seat(s) => bots[s.index()]
                    .decide(&mille_ai::observation(&state, s))
                    .expect("a move"),
                ToAct::Deal => Action::NextHand,
                ToAct::GameOver => panic!("the game ended first"),
            };
            state.apply(action).expect("legal");
        }
        state
    }

    fn seen(state: &State) -> Value {
        serde_json::to_value(mille_ai::observation(state, seat0())).expect("json")
    }

    fn to_draw() -> State {
        state_until(5, |s| {
            s.to_act() == ToAct::Seat(seat0())
                && mille_ai::observation(s, seat0()).decision().is_none()
        })
    }

    fn update(seq: u64, observation: Value) -> ServerMessage {
        ServerMessage::Update {
            table: T,
            seq,
            observation,
            seats: Vec::new(),
        }
    }

    fn joined(seq: u64, observation: Value) -> ServerMessage {
        ServerMessage::Joined {
            table: T,
            seat: 0,
            seq,
            observation,
        }
    }

    fn sent(steps: &[Step]) -> Vec<ClientMessage> {
        steps
            .iter()
            .filter_map(|s| match s {
                Step::Send(m) => Some(m.clone()),
                _ => None,
            })
            .collect()
    }

    fn logged(steps: &[Step]) -> Vec<String> {
        steps
            .iter()
            .filter_map(|s| match s {
                Step::Log(l) => Some(l.clone()),
                _ => None,
            })
            .collect()
    }

    fn moves(steps: &[Step]) -> Vec<(u64, String)> {
        sent(steps)
            .into_iter()
            .filter_map(|m| match m {
                ClientMessage::Move { table, id, action } => {
                    assert_eq!(table, T);
                    Some((id, action.as_str().expect("text").to_string()))
                }
                _ => None,
            })
            .collect()
    }

    fn jobs(steps: Vec<Step>) -> Vec<Job> {
        steps
            .into_iter()
            .filter_map(|s| match s {
                Step::Think(j) => Some(*j),
                _ => None,
            })
            .collect()
    }

    fn summary(game: GameKind) -> TableSummary {
        TableSummary {
            id: T,
            game,
            ruleset: String::new(),
            setup: Value::Null,
            seats: Vec::new(),
            status: TableStatus::Waiting,
            private: false,
            spectators: 0,
            seq: 0,
            rated: true,
            bots: false,
            arena: None,
        }
    }

    #[test]
    fn mille_invitations_are_accepted_and_others_declined() {
        let mut s = seats();
        let steps = s.on_message(ServerMessage::Invited {
            table: summary(GameKind::Mille),
            seat: 1,
            by: "ann".into(),
        });
        assert_eq!(sent(&steps), [ClientMessage::Accept { table: T }]);
        let steps = s.on_message(ServerMessage::Invited {
            table: summary(GameKind::Cubes),
            seat: 1,
            by: "ann".into(),
        });
        assert_eq!(
            sent(&steps),
            [ClientMessage::Decline {
                table: T,
                reason: Some("I play mille only".into())
            }]
        );
        assert!(logged(&steps)[0].contains("declined ann's invitation"));
    }

    #[test]
    fn the_bot_draws_then_decides_on_a_thread_and_plays_a_legal_move_once() {
        let mut s = seats();
        let state = to_draw();
        let steps = s.on_message(joined(3, seen(&state)));
        assert!(logged(&steps)[0].starts_with("table 7: playing seat 1 at bsd, 2 players"));
        let drawn = moves(&steps);
        assert_eq!(drawn.len(), 1);
        assert_eq!(drawn[0].1, "draw");
        // The same observation again (a seat's news), and the ack: nothing
        // more is sent.
        assert!(s.on_message(update(3, seen(&state))).is_empty());
        assert!(
            s.on_message(ServerMessage::Ack {
                table: T,
                id: drawn[0].0,
                seq: 4
            })
            .is_empty()
        );
        let mut after = state.clone();
        after.apply(Action::Draw).expect("the draw");
        let observation = seen(&after);
        let job = jobs(s.on_message(update(4, observation.clone())));
        assert_eq!(job.len(), 1, "one decision, made on a thread");
        // While it thinks, the same observation asks for nothing.
        assert!(s.on_message(update(4, observation.clone())).is_empty());
        let played = moves(&s.decided(think(job.into_iter().next().expect("a job"))));
        assert_eq!(played.len(), 1);
        let legal: Vec<String> = observation["legal"]
            .as_array()
            .expect("legal")
            .iter()
            .map(|a| a.as_str().expect("text").to_string())
            .collect();
        assert!(legal.contains(&played[0].1), "{played:?} in {legal:?}");
        assert!(played[0].0 > drawn[0].0, "a fresh id");
    }

    #[test]
    fn each_table_is_played_on_its_own() {
        let mut s = seats();
        let state = to_draw();
        let mut sent_to = Vec::new();
        for table in [T, T + 1] {
            let steps = s.on_message(ServerMessage::Joined {
                table,
                seat: 0,
                seq: 3,
                observation: seen(&state),
            });
            for m in sent(&steps) {
                if let ClientMessage::Move { table, action, .. } = m {
                    sent_to.push((table, action));
                }
            }
        }
        assert_eq!(
            sent_to,
            [(T, Value::from("draw")), (T + 1, Value::from("draw"))]
        );
        let mut tables: Vec<TableId> = s.tables.keys().copied().collect();
        tables.sort_unstable();
        assert_eq!(tables, [T, T + 1]);
    }

    #[test]
    fn a_refused_move_is_made_up_for_by_another_legal_one() {
        let mut s = seats();
        let mut state = to_draw();
        state.apply(Action::Draw).expect("the draw");
        let observation = seen(&state);
        let job = jobs(s.on_message(joined(4, observation.clone())));
        let first = moves(&s.decided(think(job.into_iter().next().expect("a job"))));
        let refusal = |id, code| {
            ServerMessage::Error(ErrorBody {
                code,
                message: "no".into(),
                id: Some(id),
                table: Some(T),
            })
        };
        let steps = s.on_message(refusal(first[0].0, ErrorCode::Illegal));
        let second = moves(&steps);
        assert_eq!(second.len(), 1);
        assert_ne!(second[0].1, first[0].1);
        assert!(logged(&steps)[0].contains("was refused: no"));
        // Not this seat's turn after all: the table's update is awaited.
        assert!(moves(&s.on_message(refusal(second[0].0, ErrorCode::NotYourTurn))).is_empty());
    }

    #[test]
    fn a_move_refused_before_the_game_starts_is_made_when_it_does() {
        let mut s = seats();
        let state = to_draw();
        let first = moves(&s.on_message(joined(0, seen(&state))));
        let waiting = ServerMessage::Error(ErrorBody {
            code: ErrorCode::Waiting,
            message: "the game starts when every seat is taken (1 free)".into(),
            id: Some(first[0].0),
            table: Some(T),
        });
        assert!(
            moves(&s.on_message(waiting)).is_empty(),
            "nothing to do yet"
        );
        // The last seat is taken: the same cards, the game on.
        let again = moves(&s.on_message(update(0, seen(&state))));
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].1, "draw");
    }

    #[test]
    fn ready_is_said_once_between_hands() {
        let mut s = seats();
        let state = state_until(6, |s| s.to_act() == ToAct::Deal);
        let steps = s.on_message(joined(40, seen(&state)));
        assert_eq!(sent(&steps), [ClientMessage::Ready { table: T }]);
        assert!(s.on_message(update(40, seen(&state))).is_empty());
    }

    #[test]
    fn the_end_is_logged_and_the_table_forgotten() {
        let mut s = seats();
        let state = state_until(8, |s| s.to_act() == ToAct::GameOver);
        let mut observation = seen(&state);
        observation["events"] = json!([{"event": "game_over", "winners": [1]}]);
        s.on_message(joined(10, seen(&to_draw())));
        let steps = s.on_message(update(500, observation));
        let log = logged(&steps);
        assert_eq!(log.len(), 1);
        assert!(log[0].starts_with("table 7: game lost: "), "{log:?}");
        assert!(s.tables.is_empty());
    }

    #[test]
    fn after_a_reconnection_the_seats_are_joined_and_an_unanswered_move_sent_again() {
        let mut s = seats();
        let state = to_draw();
        let drawn = moves(&s.on_message(joined(3, seen(&state))));
        let welcome = Welcome {
            version: 1,
            server: "t".into(),
            name: "r".into(),
            token: "x".into(),
            limits: Limits {
                max_message_bytes: 65536,
                messages_per_second: 20,
                burst: 40,
                idle_seconds: 120,
                away_seconds: 60,
                decision_seconds: 10,
            },
            seats: vec![SeatRef {
                table: T,
                game: GameKind::Mille,
                seat: 0,
            }],
            games: Vec::new(),
            bot: true,
        };
        assert_eq!(
            sent(&s.welcome(&welcome)),
            [ClientMessage::Join {
                table: T,
                seat: Some(0),
                code: None,
                since: None
            }]
        );
        let again = s.on_message(joined(3, seen(&state)));
        assert_eq!(moves(&again), drawn, "the same move, with its id");
        assert!(logged(&again).is_empty(), "no second start");
        // A table no longer listed ended while the bot was away.
        let steps = s.welcome(&Welcome {
            seats: Vec::new(),
            ..welcome
        });
        assert_eq!(logged(&steps), ["table 7: ended while away"]);
        assert!(s.tables.is_empty());
    }

    #[test]
    fn a_decision_the_table_overtook_is_made_again() {
        let mut s = seats();
        let mut state = to_draw();
        state.apply(Action::Draw).expect("the draw");
        let job = jobs(s.on_message(joined(4, seen(&state))));
        // Meanwhile the table moved on to another decision of this seat
        // (here: the same cards at another sequence number).
        assert!(s.on_message(update(5, seen(&state))).is_empty());
        let steps = s.decided(think(job.into_iter().next().expect("a job")));
        assert!(moves(&steps).is_empty(), "the stale answer is not sent");
        assert_eq!(jobs(steps).len(), 1, "decided again");
    }

    /// The moves a bot watched: who made them, and what.
    type Seen = std::sync::Arc<std::sync::Mutex<Vec<(Option<usize>, Action)>>>;

    /// A bot that plays the first legal action and tells what it watched.
    struct Watcher(Seen);

    impl game_table::Bot<mille_engine::Mille> for Watcher {
        fn name(&self) -> &str {
            "watcher"
        }
        fn decide(&mut self, o: &Observation) -> Result<Action, game_table::BotError> {
            Ok(o.legal[0])
        }
        fn watches(&self) -> bool {
            true
        }
        fn watch(&mut self, _: &Observation, actor: Option<usize>, action: Action) {
            if let Ok(mut seen) = self.0.lock() {
                seen.push((actor, action));
            }
        }
    }

    #[test]
    fn the_bot_is_shown_the_moves_between_its_decisions() {
        let seen: Seen = Seen::default();
        let mut state = to_draw();
        state.apply(Action::Draw).expect("the draw");
        let first = mille_ai::observation(&state, seat0());
        let decided = think(Job {
            table: T,
            key: (1, first.status),
            bot: Box::new(Watcher(std::sync::Arc::clone(&seen))),
            memory: None,
            observation: first.clone(),
            level: Level::Random,
            seed: 1,
        });
        assert!(seen.lock().expect("seen").is_empty(), "nothing before");
        // The other seat plays until seat 0 decides again.
        let mut played = vec![(Some(0), decided.action)];
        state.apply(decided.action).expect("legal");
        let mut other = make_bot(Level::Classic, 9);
        loop {
            let ToAct::Seat(s) = state.to_act() else {
                panic!("the hand ended first")
            };
            let o = mille_ai::observation(&state, s);
            if s == seat0() && o.decision().is_some() {
                break;
            }
            let a = if s == seat0() {
                Action::Draw
            } else {
                other.decide(&o).expect("a move")
            };
            played.push((Some(s.index()), a));
            state.apply(a).expect("legal");
        }
        let next = mille_ai::observation(&state, seat0());
        think(Job {
            table: T,
            key: (2, next.status),
            bot: decided.bot,
            memory: decided.memory,
            observation: next,
            level: Level::Random,
            seed: 1,
        });
        // What seat 0 may see: the other seat's draw without its card.
        let seen = seen.lock().expect("seen").clone();
        assert_eq!(seen.len(), played.len(), "{seen:?} for {played:?}");
        assert_eq!(seen[0], played[0]);
        for ((actor, action), (by, made)) in seen.iter().zip(&played) {
            assert_eq!(actor, by);
            if *action != Action::Draw {
                assert_eq!(action, made);
            }
        }
    }

    #[test]
    fn messages_keep_within_the_announced_rate() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("runtime");
        runtime.block_on(async {
            // 20 a second with a burst of 4: 2 at once, then 18 a second.
            let mut pace = Pace::new(20, 4);
            let start = tokio::time::Instant::now();
            for _ in 0..20 {
                pace.wait().await;
            }
            let took = start.elapsed().as_secs_f64();
            assert!((0.95..1.5).contains(&took), "{took}");
        });
    }

    #[test]
    fn a_decision_is_made_even_when_the_send_before_it_fails() {
        let mut s = seats();
        let mut state = to_draw();
        state.apply(Action::Draw).expect("the draw");
        let mut steps = vec![Step::Send(ClientMessage::Ping)];
        steps.extend(s.on_message(joined(4, seen(&state))));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let (done_tx, mut done) = mpsc::unbounded_channel();
        let taken = runtime.block_on(take_steps(
            steps,
            async |_: &ClientMessage| {
                Err(ClientError::Closed {
                    reason: "gone".into(),
                })
            },
            &done_tx,
        ));
        assert!(taken.is_err_and(|why| why.contains("gone")));
        // Only a decision under way still holds a sender.
        drop(done_tx);
        let decided = runtime
            .block_on(done.recv())
            .expect("the decision comes back");
        // Its table gets its bot back, and its move.
        assert_eq!(moves(&s.decided(decided)).len(), 1);
        assert!(s.tables[&T].bot.is_some());
    }

    #[test]
    fn a_bot_that_fails_is_replaced_and_the_first_legal_move_played() {
        struct Broken;
        impl game_table::Bot<mille_engine::Mille> for Broken {
            fn name(&self) -> &str {
                "broken"
            }
            fn decide(&mut self, _: &Observation) -> Result<Action, game_table::BotError> {
                panic!("a bug")
            }
        }
        let mut state = to_draw();
        state.apply(Action::Draw).expect("the draw");
        let observation = mille_ai::observation(&state, seat0());
        let decided = think(Job {
            table: T,
            key: (1, observation.status),
            bot: Box::new(Broken),
            memory: None,
            observation: observation.clone(),
            level: Level::Random,
            seed: 1,
        });
        assert_eq!(decided.action, observation.legal[0]);
        assert_eq!(decided.bot.name(), "random");
    }
}
