//! One table's actor: the only owner of its [`Table`], its seats' owners
//! and the connections at it.
//!
//! Everything that concerns a table goes through its command queue, one at
//! a time, so its story is a sequence: a move is checked by the engine,
//! written to the database, and only then acknowledged and shown. Computer
//! players think on the blocking pool (`spawn_blocking`), so a slow search
//! delays its own table and nobody else's.

use crate::games::{SeatResult, ServerGame};
use crate::store::{
    ArenaTag, EndingNote, FinishedGame, Forfeit, Outcome, SeatRow, StoreError, StoredTable,
};
use crate::{Outbox, Shared};
use game_table::{Player, SeatInfo, Table, TableError, Turn, Viewer};
use serde::Serialize;
use serde_json::Value;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use table_protocol::{
    ErrorBody, ErrorCode, GameKind, SeatKindSummary, SeatSummary, ServerMessage, TableId,
    TableStatus, TableSummary,
};
use tokio::sync::mpsc;

/// A connection's number, for the tables it sits at.
pub type ConnId = u64;

/// What a table is asked to do.
pub enum Cmd {
    /// Seat this connection's player.
    Join {
        /// The connection.
        conn: ConnId,
        /// Its player.
        name: String,
        /// Where to write to it.
        out: Outbox,
        /// The seat asked for.
        seat: Option<usize>,
        /// The invitation code given.
        code: Option<String>,
        /// The last sequence number it saw.
        since: Option<u64>,
        /// Whether the name is a bot's.
        bot: bool,
    },
    /// A bot declines the seat it was invited to.
    Decline {
        /// The connection.
        conn: ConnId,
        /// Its player (the bot).
        name: String,
        /// Where to write to it.
        out: Outbox,
        /// Its reason.
        reason: String,
    },
    /// Let this connection watch.
    Watch {
        /// The connection.
        conn: ConnId,
        /// Its player.
        name: String,
        /// Where to write to it.
        out: Outbox,
        /// The invitation code given.
        code: Option<String>,
        /// The last sequence number it saw.
        since: Option<u64>,
    },
    /// A person's move.
    Move {
        /// The connection.
        conn: ConnId,
        /// Where to write to it.
        out: Outbox,
        /// The client's id of the move.
        id: u64,
        /// The action, in the game's wire form.
        action: Value,
        /// When it arrived, for the latency histogram.
        at: Instant,
    },
    /// Ready for the next hand.
    Ready {
        /// The connection.
        conn: ConnId,
        /// Where to write to it.
        out: Outbox,
    },
    /// The connection leaves the table.
    Leave {
        /// The connection.
        conn: ConnId,
        /// Where to write to it.
        out: Outbox,
    },
    /// The connection closed.
    Gone {
        /// The connection.
        conn: ConnId,
    },
    /// Another instance holds the table's lease now: this one stops
    /// running it.
    LeaseLost,
}

/// How the server reaches a table.
#[derive(Clone)]
pub struct TableHandle {
    /// Its command queue.
    pub commands: mpsc::UnboundedSender<Cmd>,
    /// Its lobby line, kept current by the table.
    pub summary: Arc<Mutex<TableSummary>>,
}

/// Per seat: who it was made for, who holds it, whether a computer plays
/// it while its person is away.
struct Slot {
    level: Option<String>,
    owner: Option<String>,
    away: bool,
    away_at: Option<Instant>,
    /// Its player's rating in the table's category (a rated table's).
    rating: Option<game_rating::Rating>,
    /// Whether its owner is a bot (a program's account).
    bot: bool,
    /// Whether the seat is kept for a bot that has not joined since this
    /// actor started (invited, or not back after a restart).
    invited: bool,
    /// Whether the stand-in plays the seat for the rest of the game: its
    /// bot let its decision clock run out, and does not get it back.
    replaced: bool,
}

struct Seated {
    viewer: Viewer,
    out: Outbox,
    /// How many of the table's events this connection has been shown.
    shown: usize,
}

/// Why a table's actor stops before its game is over.
#[derive(Debug, thiserror::Error)]
pub enum Halt {
    /// The database failed: the log is whole up to the last acknowledged
    /// move, and the next start replays it.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The game cannot go on (its computer players keep failing, or one
    /// crashed with the table): it is closed for good.
    #[error("{0}")]
    Broken(String),
}

/// How many accepted move ids a seat remembers, for moves sent again.
const REMEMBERED: usize = 64;

/// One table.
pub struct Actor<G: ServerGame> {
    id: TableId,
    setup: G::Setup,
    setup_json: Value,
    seed: u64,
    code: Option<String>,
    /// The rating category its result counts in; `None` for a casual
    /// table.
    category: Option<game_rating::Category>,
    table: Table<G>,
    slots: Vec<Slot>,
    conns: HashMap<ConnId, Seated>,
    /// `events_at[seq]`: how many events the table had after its `seq`-th
    /// public move. The sequence number the protocol speaks of counts the
    /// moves everybody sees something of: a move only its maker sees (a
    /// declined coup fourré) must not show in a number everybody gets.
    events_at: Vec<usize>,
    accepted: Vec<VecDeque<(u64, u64)>>,
    ready: HashSet<usize>,
    host_at: Option<Instant>,
    status: TableStatus,
    shared: Arc<Shared>,
    summary: Arc<Mutex<TableSummary>>,
    /// Bots that failed in a row, so a broken table stops trying.
    failures: u32,
    /// When a table that nobody waits at closes.
    empty_at: Option<Instant>,
    /// When a table whose game has not started closes, whoever waits.
    unstarted_by: Instant,
    /// The pause after a move that a hidden decision may follow (a
    /// hazard, which a coup fourré may answer), whether one does or not.
    window: Option<Window>,
    /// People's moves waiting for the window to end (or, without windows,
    /// for a pending secret decision to be made), in the order they came.
    waiting: VecDeque<(usize, Held<G::Action>)>,
    /// When the last window that ran its course opened: the computer move
    /// after it is paced from then.
    paced_from: Option<Instant>,
    /// When the computer whose turn it is plays (`--bot-delay` after the
    /// last move).
    bot_at: Option<Instant>,
    /// Since when no person's seat is connected while the game is on.
    paused_since: Option<Instant>,
    /// Per seat: the moves it made, and how many of them a stand-in made
    /// for its absent person.
    decisions: Vec<(u32, u32)>,
    /// Whether any bot may take a free person's seat.
    bots_allowed: bool,
    /// The arena game this table is: its bots lose by forfeit what
    /// elsewhere a stand-in would play for them.
    arena: Option<ArenaTag>,
    /// Per seat: since when the table waits for the bot that holds it
    /// (its decision clock, `Config::decision_limit`).
    waited: Vec<Option<Instant>>,
}

/// What a `join` asks for.
struct Asked {
    /// The seat asked for.
    seat: Option<usize>,
    /// The invitation code given.
    code: Option<String>,
    /// The last sequence number it saw.
    since: Option<u64>,
    /// Whether the name is a bot's.
    bot: bool,
}

/// A person's move held until the table may answer it.
struct Held<A> {
    out: Outbox,
    id: u64,
    /// The action, or why it is not one (answered when the others are,
    /// so that not even a malformed move is answered sooner).
    action: Result<A, String>,
    at: Instant,
}

/// The pause after a hazard. Until it ends nothing public happens: the
/// moves that come are answered when it ends, computers wait, and a
/// coup-fourré chance (if there is one) is decided within it. The same
/// pause follows a hazard whether a seat holds the safety or not, so that
/// neither the answers nor their times tell.
#[derive(Clone, Copy, Debug)]
struct Window {
    opened: Instant,
    /// A chance still open then is let pass (a little before the end, so
    /// that writing the decline does not delay what the end releases).
    decide_by: Instant,
    ends: Instant,
}

/// The pause after a hazard on a side of computers only: they decide at
/// once, so it need only cover their thinking and the writing of their
/// answer.
const COMPUTER_WINDOW: Duration = Duration::from_millis(100);

/// How many moves of one seat may wait for a window's end.
const MAX_WAITING: usize = 16;

/// A time limit in seconds as people read it: "10", "0.5".
fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        d.as_secs().to_string()
    } else {
        format!("{:.1}", d.as_secs_f64())
    }
}

fn bot_seed(seed: u64, seat: usize) -> u64 {
    seed ^ (seat as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

fn person(slot: &Slot, seat: usize) -> SeatInfo {
    SeatInfo::human(
        slot.owner
            .clone()
            .unwrap_or_else(|| format!("Seat {}", seat + 1)),
    )
}

impl<G: ServerGame> Actor<G> {
    /// A table as stored, its log replayed (computer players watch the
    /// replay as they watched the game).
    pub fn restore(stored: StoredTable, shared: Arc<Shared>) -> Result<Actor<G>, String> {
        let setup = G::setup(&stored.setup)?;
        let category = G::category(&setup, stored.seats.len()).filter(|_| stored.rated);
        let slots: Vec<Slot> = stored
            .seats
            .iter()
            .enumerate()
            .map(|(k, (level, owner))| {
                let bot = level.is_none()
                    && owner.is_some()
                    && stored.bots.get(k).copied().unwrap_or(false);
                Slot {
                    level: level.clone(),
                    owner: owner.clone(),
                    away: false,
                    away_at: None,
                    rating: None,
                    bot,
                    // A game under way was joined by its bots; only an
                    // unstarted table still waits for them to come.
                    invited: bot && stored.moves.is_empty(),
                    replaced: false,
                }
            })
            .collect();
        let mut players = Vec::with_capacity(slots.len());
        for (k, slot) in slots.iter().enumerate() {
            players.push(match &slot.level {
                Some(level) => {
                    // Two computers of one level are told apart: "Steady
                    // Sam", "Steady Sam 2".
                    let base = G::bot_name(level, k);
                    let twins = players
                        .iter()
                        .filter(|(info, _): &&(SeatInfo, Player<G>)| {
                            info.name == base || info.name.starts_with(&format!("{base} "))
                        })
                        .count();
                    let name = match twins {
                        0 => base,
                        n => format!("{base} {}", n + 1),
                    };
                    (
                        SeatInfo::computer(name, level.clone()),
                        Player::Bot(match shared.bot::<G>(level, bot_seed(stored.seed, k)) {
                            Ok(bot) => bot,
                            // A bot program the server no longer offers (or
                            // that cannot start): the stand-in plays its seat.
                            Err(why) => {
                                tracing::warn!(
                                    table = stored.id,
                                    seat = k,
                                    why,
                                    "a computer player cannot start; the stand-in plays"
                                );
                                G::bot(G::stand_in(), bot_seed(stored.seed, k))?
                            }
                        }),
                    )
                }
                None => (person(slot, k), Player::Person),
            });
        }
        let state = G::start(&setup, slots.len(), stored.seed)?;
        let mut table = Table::new(state, players);
        let mut events_at = vec![table.event_count()];
        let mut accepted = vec![VecDeque::new(); slots.len()];
        let mut decisions = vec![(0, 0); slots.len()];
        let mut last_public = None;
        for (seq, (seat, action, client_id)) in stored.moves.iter().enumerate() {
            if let Some(d) = seat.and_then(|s| decisions.get_mut(s)) {
                d.0 += 1;
                d.1 += u32::from(stored.stand_in.binary_search(&seq).is_ok());
            }
            let action = G::read_action(action).map_err(|e| format!("move {}: {e}", seq + 1))?;
            table
                .replay(action)
                .map_err(|e| format!("move {}: {e}", seq + 1))?;
            let last = events_at.last().copied().unwrap_or(0);
            if public::<G>(&table, last) {
                events_at.push(table.event_count());
                last_public = Some(action);
            }
            if let (Some(seat), Some(id)) = (seat, client_id)
                && let Some(ids) = accepted.get_mut(*seat)
            {
                remember(ids, *id, events_at.len() as u64 - 1);
            }
        }
        // A table whose bots were invited and have not played yet waits
        // for them as for any person.
        let waiting = slots.iter().any(|s| s.level.is_none() && s.owner.is_none())
            || (stored.moves.is_empty() && slots.iter().any(|s| s.invited));
        // A game that ended just before a crash counts as playing until
        // `advance` finds it over and records its results.
        let status = if waiting {
            TableStatus::Waiting
        } else {
            TableStatus::Playing
        };
        let summary = Arc::new(Mutex::new(empty_summary(stored.id, G::KIND)));
        // Counted from when this instance took the table up: a restart
        // gives a waiting table its time again.
        let unstarted_by = Instant::now() + shared.config.close_unstarted_after;
        let mut actor = Actor {
            id: stored.id,
            setup,
            setup_json: stored.setup,
            seed: stored.seed,
            code: stored.code,
            category,
            table,
            slots,
            conns: HashMap::new(),
            events_at,
            accepted,
            ready: HashSet::new(),
            host_at: None,
            status,
            shared,
            summary,
            failures: 0,
            empty_at: None,
            unstarted_by,
            window: None,
            waiting: VecDeque::new(),
            paced_from: None,
            bot_at: None,
            paused_since: None,
            decisions,
            bots_allowed: stored.bots_allowed,
            waited: vec![None; stored.seats.len()],
            arena: stored.arena,
        };
        // Stopped right after a hazard: the pause starts again (a chance
        // still open gets its whole time again).
        if let Some(action) = last_public
            && let Some((seats, next)) = G::hidden_chance_after(actor.table.state(), action)
        {
            actor.window_after(&seats, next);
        }
        // Nobody is connected after a restart. Before the game starts the
        // away clock runs for every person (a seat not taken back is given
        // up, an invitation not answered lapses); a game in progress is
        // paused until somebody comes back. An arena's bots have their
        // decision clock instead, and lose the game when it runs out.
        let away_at = Instant::now() + actor.shared.config.away;
        if actor.status == TableStatus::Waiting {
            let arena = actor.arena.is_some();
            for slot in &mut actor.slots {
                if slot.level.is_none() && slot.owner.is_some() && !(arena && slot.bot) {
                    slot.away_at = Some(away_at);
                }
            }
        }
        actor.publish();
        Ok(actor)
    }

    /// The handle to reach this table.
    pub fn handle(&self, commands: mpsc::UnboundedSender<Cmd>) -> TableHandle {
        TableHandle {
            commands,
            summary: Arc::clone(&self.summary),
        }
    }

    /// Runs the table until its game is over and everybody has left.
    pub async fn run(mut self, mut commands: mpsc::UnboundedReceiver<Cmd>) {
        self.load_ratings().await;
        self.publish();
        let halted = 'run: loop {
            match self.advance().await {
                Err(h) => break Some(h),
                Ok(true) => {
                    // Whatever came meanwhile (a join, a leave, a move) is
                    // handled before the next computer move: a long run of
                    // them holds nobody up.
                    while let Ok(cmd) = commands.try_recv() {
                        if let Err(e) = self.handle_cmd(cmd).await {
                            break 'run Some(e.into());
                        }
                    }
                    continue;
                }
                Ok(false) => {}
            }
            // Nobody's seat is connected during a game: it is paused, and
            // closed as abandoned if it stays so.
            let paused = self.status == TableStatus::Playing && !self.person_connected();
            match (paused, self.paused_since) {
                (true, None) => self.paused_since = Some(Instant::now()),
                (false, Some(_)) => self.paused_since = None,
                _ => {}
            }
            if self.status == TableStatus::Over && self.conns.is_empty() {
                break None;
            }
            // A table nobody waits at closes after the away time (a
            // new one gets that long for its first player to sit down).
            match (self.abandoned(), self.empty_at) {
                (true, None) => self.empty_at = Some(Instant::now() + self.shared.config.away),
                (false, Some(_)) => self.empty_at = None,
                _ => {}
            }
            self.wind_decision_clocks();
            let deadline = self.next_deadline();
            let cmd = match deadline {
                Some(at) => {
                    tokio::select! {
                        cmd = commands.recv() => cmd,
                        () = tokio::time::sleep_until(at.into()) => {
                            if let Err(e) = self.on_timer().await {
                                break Some(e.into());
                            }
                            continue;
                        }
                    }
                }
                None => commands.recv().await,
            };
            let Some(cmd) = cmd else { break None };
            if let Err(e) = self.handle_cmd(cmd).await {
                break Some(e.into());
            }
        };
        let release = matches!(
            &halted,
            Some(Halt::Store(e)) if !matches!(e, StoreError::LeaseLost(_))
        );
        if let Some(h) = halted {
            self.halt(h).await;
        }
        if release {
            // Stopped by a failing database: whoever asks for the table
            // next (here or at another instance) replays it, without
            // waiting for the lease to run out. Given up before this actor
            // is forgotten, so that no new actor here loses it.
            if let Err(e) = self.shared.store.release(self.id).await {
                tracing::warn!(table = self.id, error = %e, "cannot give the table's lease up");
            }
        }
        // Nobody can reach the table any more; what was already on its way
        // is answered rather than left waiting.
        self.shared.forget(self.id);
        commands.close();
        while let Ok(cmd) = commands.try_recv() {
            let (out, id) = match cmd {
                Cmd::Join { out, .. }
                | Cmd::Decline { out, .. }
                | Cmd::Watch { out, .. }
                | Cmd::Leave { out, .. }
                | Cmd::Ready { out, .. } => (out, None),
                Cmd::Move { out, id, .. } => (out, Some(id)),
                Cmd::Gone { .. } | Cmd::LeaseLost => continue,
            };
            self.refuse(
                &out,
                ErrorCode::NoSuchTable,
                "the table is closed".into(),
                id,
            );
        }
    }

    /// The table stops: everybody at it is told why; a broken game is
    /// closed for good.
    async fn halt(&mut self, h: Halt) {
        // With several instances, a table stopped by its database may be
        // run by another instance already, or soon: its people reconnect
        // and are taken there.
        let elsewhere = self.shared.store.shared() && matches!(h, Halt::Store(_));
        if elsewhere || matches!(h, Halt::Store(StoreError::LeaseLost(_))) {
            // Another instance runs the table from its log now: the people
            // here reconnect (through any instance) and are taken to it. A
            // move not yet written is refused with the rest and sent again.
            tracing::warn!(table = self.id, error = %h, "the table stops here; another instance runs it");
            for c in self.conns.values() {
                c.out
                    .close("the table moved to another server instance: reconnect".into());
            }
            return;
        }
        tracing::error!(table = self.id, error = %h, "the table stops");
        let message = match &h {
            Halt::Store(_) => "the table stopped: it will be back when you join it again",
            Halt::Broken(_) => "the table cannot go on: a computer player failed",
        };
        if let Halt::Broken(_) = h {
            self.status = TableStatus::Over;
            if let Err(e) = self
                .shared
                .store
                .close(self.id, Outcome::Broken, Vec::new())
                .await
            {
                tracing::error!(table = self.id, error = %e, "cannot close the table");
            }
        }
        let msg = ServerMessage::Error(ErrorBody {
            code: ErrorCode::Unavailable,
            message: message.into(),
            id: None,
            table: Some(self.id),
        });
        for c in self.conns.values() {
            c.out.send_msg(&msg);
        }
    }

    fn next_deadline(&self) -> Option<Instant> {
        self.slots
            .iter()
            .filter_map(|s| s.away_at)
            .chain(self.host_at)
            .chain(self.empty_at)
            .chain(self.bot_at)
            .chain(
                self.paused_since
                    .map(|at| at + self.shared.config.abandon_after),
            )
            .chain((self.status == TableStatus::Waiting).then_some(self.unstarted_by))
            .chain(
                self.waited
                    .iter()
                    .flatten()
                    .map(|at| *at + self.shared.config.decision_limit),
            )
            .chain(self.window.map(|w| w.ends))
            .chain(
                self.window
                    .filter(|_| G::secret_decision(self.table.state()))
                    .map(|w| w.decide_by),
            )
            .min()
    }

    /// Whether the game has not started and nobody holds a seat or is
    /// connected.
    fn abandoned(&self) -> bool {
        self.status == TableStatus::Waiting
            && self.conns.is_empty()
            && self.slots.iter().all(|s| s.owner.is_none())
    }

    /// A seat's away clock ran out: a computer plays it while the game is
    /// on; before the game starts the seat is given up, and a table that
    /// nobody waits at any more closes.
    async fn on_timer(&mut self) -> Result<(), StoreError> {
        let now = Instant::now();
        let limit = self.shared.config.decision_limit;
        let expired: Vec<usize> = (0..self.slots.len())
            .filter(|&seat| self.waited[seat].is_some_and(|at| at + limit <= now))
            .collect();
        if self.status == TableStatus::Waiting && self.arena.is_some() && expired.len() > 1 {
            // No bot came: a forfeit would hand the first seat's loss to
            // the other, who did not come either. The table closes
            // unstarted, with no result (below).
            for seat in expired {
                self.waited[seat] = None;
            }
            self.unstarted_by = now;
        }
        for seat in 0..self.slots.len() {
            if self.waited[seat].is_some_and(|at| at + limit <= now) {
                self.waited[seat] = None;
                self.out_of_time(seat).await?;
                if self.status == TableStatus::Over {
                    return Ok(());
                }
            }
        }
        for seat in 0..self.slots.len() {
            if self.slots[seat].away_at.is_none_or(|at| at > now) {
                continue;
            }
            self.slots[seat].away_at = None;
            match self.status {
                TableStatus::Playing if self.person_connected() => self.stand_in(seat),
                TableStatus::Playing => {}
                TableStatus::Waiting => {
                    let lapsed = self.slots[seat].invited;
                    let bot = self.free_seat(seat).await?;
                    if let (true, Some(bot)) = (lapsed, bot) {
                        self.tell_declined(seat, bot, "did not answer the invitation", None);
                    }
                    self.broadcast();
                }
                TableStatus::Over => {}
            }
        }
        if self.status == TableStatus::Waiting && self.unstarted_by <= now {
            self.shared
                .store
                .close(self.id, Outcome::Unstarted, Vec::new())
                .await?;
            self.status = TableStatus::Over;
            tracing::info!(
                table = self.id,
                "the game did not start in time: the table closes"
            );
            let msg = ServerMessage::Error(ErrorBody {
                code: ErrorCode::GameOver,
                message: "nobody came to play at this table in time: it is closed".into(),
                id: None,
                table: Some(self.id),
            });
            for c in self.conns.values() {
                c.out.send_msg(&msg);
            }
            self.broadcast();
            return Ok(());
        }
        if self
            .paused_since
            .is_some_and(|at| at + self.shared.config.abandon_after <= now)
        {
            return self.close_abandoned().await;
        }
        if self.empty_at.is_some_and(|at| at <= now) && self.abandoned() {
            self.shared
                .store
                .close(self.id, Outcome::Unstarted, Vec::new())
                .await?;
            self.status = TableStatus::Over;
            tracing::info!(table = self.id, "nobody waits at the table: it closes");
        }
        // A passed host deadline is acted on by `advance`.
        Ok(())
    }

    /// A computer plays `seat` while its person is away.
    fn stand_in(&mut self, seat: usize) {
        let level = G::stand_in();
        let Ok(bot) = G::bot(level, bot_seed(self.seed, seat)) else {
            return;
        };
        let name = person(&self.slots[seat], seat).name;
        let info = SeatInfo::computer(format!("{name} (away)"), level);
        if self.table.seat(seat, info, Player::Bot(bot)).is_ok() {
            tracing::info!(table = self.id, seat, "a computer plays for an away player");
            self.slots[seat].away = true;
            self.broadcast();
        }
    }

    /// Whether the table waits for the bot holding `seat`: to take its
    /// seat at an arena table that has not started, or, during the game,
    /// for its move (outside a window after a hazard, which bounds a
    /// hidden chance by itself, so that no clock tells of one) or for it
    /// to be ready between hands. A paused game waits for nobody.
    fn awaits_bot(&self, seat: usize) -> bool {
        let slot = &self.slots[seat];
        if !slot.bot || slot.away {
            return false;
        }
        match self.status {
            TableStatus::Waiting => self.arena.is_some() && slot.invited,
            TableStatus::Playing if self.person_connected() => match self.table.turn() {
                // Outside the arena a bot that is not connected is away,
                // as a person is: the away clock covers it (after a
                // restart it has its time to come back).
                Turn::Seat(s) => {
                    s == seat
                        && (self.arena.is_some() || self.seat_connected(seat))
                        && self.window.is_none()
                        && matches!(self.table.player(seat), Some(Player::Person))
                        && !self.waiting.iter().any(|(k, _)| *k == seat)
                }
                Turn::Host => self.seat_connected(seat) && !self.ready.contains(&seat),
                Turn::Over => false,
            },
            TableStatus::Playing | TableStatus::Over => false,
        }
    }

    /// Starts the decision clock of every bot the table now waits for
    /// (from now), and stops the others'.
    fn wind_decision_clocks(&mut self) {
        let now = Instant::now();
        for seat in 0..self.slots.len() {
            if self.awaits_bot(seat) {
                self.waited[seat].get_or_insert(now);
            } else {
                self.waited[seat] = None;
            }
        }
    }

    /// The bot holding `seat` let its decision clock run out: at an arena
    /// table it loses the game; elsewhere the stand-in plays its seat for
    /// the rest of the game (and the bot has abandoned it).
    async fn out_of_time(&mut self, seat: usize) -> Result<(), StoreError> {
        if self.arena.is_some() {
            let reason = match self.status {
                TableStatus::Waiting => "did not take its seat".to_string(),
                _ => format!(
                    "took more than {} s over a decision",
                    seconds(self.shared.config.decision_limit)
                ),
            };
            return self.forfeit(seat, reason).await;
        }
        if self.status == TableStatus::Playing {
            tracing::info!(
                table = self.id,
                seat,
                "a bot took too long over a decision; the stand-in plays its seat"
            );
            self.slots[seat].away_at = None;
            self.slots[seat].replaced = true;
            self.stand_in(seat);
        }
        Ok(())
    }

    /// Frees `seat` before the game starts (given up, left, declined):
    /// answers whose it was.
    async fn free_seat(&mut self, seat: usize) -> Result<Option<String>, StoreError> {
        self.shared.store.set_owner(self.id, seat, None).await?;
        let slot = &mut self.slots[seat];
        let owner = slot.owner.take();
        slot.bot = false;
        slot.invited = false;
        slot.away_at = None;
        let info = person(&self.slots[seat], seat);
        let _ = self.table.seat(seat, info, Player::Person);
        Ok(owner)
    }

    /// Tells the connections at the table (and `also`, the bot that
    /// declined) that the bot invited to `seat` will not come.
    fn tell_declined(&self, seat: usize, bot: String, reason: &str, also: Option<&Outbox>) {
        let msg = ServerMessage::Declined {
            table: self.id,
            seat,
            bot,
            reason: reason.to_string(),
        };
        for c in self.conns.values() {
            c.out.send_msg(&msg);
        }
        if let Some(out) = also {
            out.send_msg(&msg);
        }
    }

    /// A bot declines the seat kept for it: the seat is free again (at an
    /// arena table, where seats are kept for the paired bots only, the
    /// bot loses the game).
    async fn decline(
        &mut self,
        name: String,
        out: Outbox,
        reason: String,
    ) -> Result<(), StoreError> {
        let kept = self
            .slots
            .iter()
            .position(|s| s.invited && s.owner.as_deref() == Some(name.as_str()));
        let Some(seat) = kept.filter(|_| self.status != TableStatus::Over) else {
            let why = "no seat at this table waits for you".to_string();
            self.refuse(&out, ErrorCode::NotSeated, why, None);
            return Ok(());
        };
        if self.arena.is_some() {
            self.tell_declined(seat, name, &reason, Some(&out));
            return self.forfeit(seat, "declined the game".into()).await;
        }
        if self.status != TableStatus::Waiting {
            let why = "the game has started: leave the table instead".to_string();
            self.refuse(&out, ErrorCode::NotSeated, why, None);
            return Ok(());
        }
        self.free_seat(seat).await?;
        tracing::info!(table = self.id, seat, bot = name, "a bot declined its seat");
        // The lobby has the seat free before anybody hears of it.
        self.publish();
        self.tell_declined(seat, name, &reason, Some(&out));
        self.broadcast();
        Ok(())
    }

    /// The bot holding `seat` at an arena table loses the game at once:
    /// the others win it, the scores are as they stand, and it is rated.
    async fn forfeit(&mut self, seat: usize, reason: String) -> Result<(), StoreError> {
        if self.status == TableStatus::Over {
            return Ok(());
        }
        self.status = TableStatus::Over;
        let mut results = G::scores_now(self.table.state());
        let lost = results.get(seat).map_or(seat, |r| r.side);
        for r in &mut results {
            r.won = r.side != lost;
        }
        let mut winners: Vec<usize> = results.iter().filter(|r| r.won).map(|r| r.side).collect();
        winners.sort_unstable();
        winners.dedup();
        let abandoned: Vec<bool> = (0..self.slots.len()).map(|k| k == seat).collect();
        let rows: Vec<SeatRow> = results
            .iter()
            .enumerate()
            .map(|(k, r)| SeatRow {
                name: self.result_name(k),
                computer: self.slots[k].level.is_some(),
                score: r.score,
                won: r.won,
                side: r.side,
                place: if r.won { 0 } else { winners.len() },
                abandoned: abandoned[k],
            })
            .collect();
        let story = format!("{} lost by forfeit: {reason}.", self.result_name(seat));
        // Nothing more happens at the table: its clocks stop, and the
        // moves that waited are answered.
        self.window = None;
        self.host_at = None;
        self.bot_at = None;
        self.paused_since = None;
        for k in 0..self.slots.len() {
            self.slots[k].away_at = None;
            self.waited[k] = None;
        }
        for (_, held) in std::mem::take(&mut self.waiting) {
            let why = "the game is over".to_string();
            self.refuse(&held.out, ErrorCode::GameOver, why, Some(held.id));
        }
        // A game not played to its end enters no high-score table.
        let game = FinishedGame {
            results: rows,
            score: None,
            category: self.category,
            endings: self.endings(&story, &abandoned),
            forfeit: Some(Forfeit {
                seat,
                reason: reason.clone(),
            }),
        };
        let changes = self.shared.store.finish(self.id, game).await?;
        for k in 0..self.slots.len() {
            let name = self.result_name(k);
            if let Some(c) = changes.iter().find(|c| c.name == name) {
                self.slots[k].rating = Some(c.after);
            }
        }
        tracing::info!(
            table = self.id,
            seat,
            reason,
            "a bot lost the game by forfeit"
        );
        let msg = ServerMessage::Error(ErrorBody {
            code: ErrorCode::GameOver,
            message: story,
            id: None,
            table: Some(self.id),
        });
        for c in self.conns.values() {
            c.out.send_msg(&msg);
        }
        self.broadcast();
        Ok(())
    }

    /// Makes the table's next move if it is due: a computer's, the
    /// host's, or a chance let pass. Answers whether it moved (the caller
    /// handles the commands that came meanwhile, then asks again); `false`
    /// when a person must act, a deadline is awaited or the table is
    /// paused.
    async fn advance(&mut self) -> Result<bool, Halt> {
        let now = Instant::now();
        if let Some(w) = self.window
            && now >= w.ends
        {
            self.window = None;
            self.paced_from = Some(w.opened);
        }
        if self.status != TableStatus::Playing {
            self.window = None;
            return Ok(false);
        }
        if let (Some(w), Turn::Seat(holder)) = (self.window, self.table.turn())
            && now >= w.decide_by
            && G::secret_decision(self.table.state())
            && let Some(pass) = G::let_pass(self.table.state())
        {
            // The chance's time is up: it passes, as if declined.
            self.table
                .replay(pass)
                .map_err(|e| Halt::Broken(e.to_string()))?;
            self.record(Some(holder), pass, None, false).await?;
            self.broadcast_news();
            return Ok(true);
        }
        if !self.waiting.is_empty() {
            self.release_waiting().await?;
        }
        let secret = G::secret_decision(self.table.state());
        if self.window.is_some() {
            // Nothing public before the window ends: only a computer
            // with a chance answers it, at once (unseen, or a coup
            // fourré that everybody sees and that ends the window).
            return match self.table.turn() {
                Turn::Seat(seat)
                    if secret && matches!(self.table.player(seat), Some(Player::Bot(_))) =>
                {
                    self.bot_step().await
                }
                _ => Ok(false),
            };
        }
        match self.table.turn() {
            Turn::Over => {
                self.finish().await?;
                Ok(false)
            }
            // No person at the table: nothing is played until one comes
            // back, so that no computer plays for an absent person and a
            // table nobody follows costs nothing.
            Turn::Host | Turn::Seat(_) if !self.person_connected() => Ok(false),
            Turn::Host => {
                let people: Vec<usize> = self.connected_people();
                let all_ready = people.iter().all(|s| self.ready.contains(s));
                let due = self.host_at.is_some_and(|at| at <= now);
                if !(all_ready || due) {
                    if self.host_at.is_none() {
                        self.host_at = Some(now + self.shared.config.hand_pause);
                    }
                    return Ok(false);
                }
                let Some(action) = G::host_action(self.table.state()) else {
                    return Ok(false);
                };
                if self.table.host_act(action).is_err() {
                    return Ok(false);
                }
                self.host_at = None;
                self.ready.clear();
                self.record(None, action, None, false).await?;
                self.broadcast_news();
                Ok(true)
            }
            Turn::Seat(seat) => {
                if !matches!(self.table.player(seat), Some(Player::Bot(_))) {
                    return Ok(false);
                }
                // The pause is for people following computers; an arena's
                // games are between programs.
                let delay = match self.arena {
                    Some(_) => Duration::ZERO,
                    None => self.shared.config.bot_delay,
                };
                if !delay.is_zero() && !secret {
                    // Paced from the hazard when a window came between:
                    // the window is part of the pause. A deadline, not a
                    // sleep, so that the table answers meanwhile.
                    let paced_from = &mut self.paced_from;
                    let due = *self
                        .bot_at
                        .get_or_insert_with(|| paced_from.take().unwrap_or(now) + delay);
                    if now < due {
                        return Ok(false);
                    }
                }
                self.bot_at = None;
                self.bot_step().await
            }
        }
    }

    /// One computer move, thought out on the blocking pool. Answers
    /// whether the table moved.
    async fn bot_step(&mut self) -> Result<bool, Halt> {
        // The table goes to the worker and comes back: nothing else
        // happens at this table meanwhile (its commands wait in line).
        let placeholder = Table::new(self.table.state().clone(), Vec::new());
        let mut table = std::mem::replace(&mut self.table, placeholder);
        let joined = tokio::task::spawn_blocking(move || {
            let step = table.step();
            (table, step)
        })
        .await;
        let step = match joined {
            Ok((table, step)) => {
                self.table = table;
                step
            }
            Err(e) => {
                // The table went down with the player's thread.
                return Err(Halt::Broken(format!("a computer player crashed: {e}")));
            }
        };
        match step {
            Ok(game_table::Step::Moved { seat, action }) => {
                self.failures = 0;
                // A person's seat that a computer plays: the stand-in's.
                let stand_in = self.slots.get(seat).is_some_and(|s| s.level.is_none());
                self.record(Some(seat), action, None, stand_in).await?;
                self.broadcast_news();
                Ok(true)
            }
            Ok(_) => Ok(false),
            Err(TableError::BotIllegal { seat, .. } | TableError::BotFailed { seat, .. })
                if self.failures < 3 =>
            {
                self.failures += 1;
                tracing::error!(
                    table = self.id,
                    seat,
                    "a computer player failed; classic stands in"
                );
                self.shared.metrics.errors.inc();
                let level = G::stand_in();
                if let Ok(bot) = G::bot(level, bot_seed(self.seed, seat) ^ 1) {
                    let mut info = self.table.seats()[seat].clone();
                    info.kind = game_table::SeatKind::Computer {
                        level: level.to_string(),
                    };
                    let _ = self.table.seat(seat, info, Player::Bot(bot));
                }
                Ok(true)
            }
            Err(e) => Err(Halt::Broken(e.to_string())),
        }
    }

    /// Writes an accepted move (`stand_in`: made by a computer for an
    /// absent person), then shows it.
    async fn record(
        &mut self,
        seat: Option<usize>,
        action: G::Action,
        client_id: Option<u64>,
        stand_in: bool,
    ) -> Result<(), StoreError> {
        let seq = self.table.seq();
        self.shared
            .store
            .append(
                self.id,
                seq,
                seat,
                G::write_action(action),
                client_id,
                stand_in,
            )
            .await?;
        self.bot_at = None;
        // Every move starts a new wait: the decision clocks start again
        // for whoever the table waits for now.
        self.waited.iter_mut().for_each(|w| *w = None);
        if let Some(d) = seat.and_then(|s| self.decisions.get_mut(s)) {
            d.0 += 1;
            d.1 += u32::from(stand_in);
        }
        let last = self.events_at.last().copied().unwrap_or(0);
        if public::<G>(&self.table, last) {
            self.events_at.push(self.table.event_count());
            self.paced_from = None;
            // A move everybody sees during a window (a coup fourré called)
            // tells everything the window hid: the game goes on at once.
            self.window = None;
            if let Some((seats, next)) = G::hidden_chance_after(self.table.state(), action) {
                self.window_after(&seats, next);
            }
        }
        let public_seq = self.seq();
        if let (Some(seat), Some(id)) = (seat, client_id)
            && let Some(ids) = self.accepted.get_mut(seat)
        {
            remember(ids, id, public_seq);
        }
        self.shared.metrics.moves.inc();
        Ok(())
    }

    /// Whether each seat's person abandoned the game: not back at the
    /// table at its end, or played by the stand-in for more than a quarter
    /// of the seat's decisions (a bot's: for any of them, as a program
    /// has no reason to be away). Computers never abandon.
    fn abandoners(&self) -> Vec<bool> {
        (0..self.slots.len())
            .map(|k| {
                if self.slots[k].level.is_some() {
                    return false;
                }
                let (made, by_stand_in) = self.decisions.get(k).copied().unwrap_or((0, 0));
                let allowed = if self.slots[k].bot { 0 } else { made };
                !self.seat_connected(k) || by_stand_in * 4 > allowed
            })
            .collect()
    }

    /// The name a seat's result is recorded (and rated) under: its
    /// person's, or `computer: LEVEL`.
    fn result_name(&self, k: usize) -> String {
        match (&self.slots[k].level, &self.slots[k].owner) {
            (Some(level), _) => game_rating::computer_name(level),
            (None, Some(owner)) => owner.clone(),
            (None, None) => person(&self.slots[k], k).name,
        }
    }

    /// The end of the game in a sentence: each side's players and score,
    /// the winners first.
    fn story(&self, results: &[SeatResult], places: &[usize]) -> String {
        let mut sides: Vec<(usize, usize, String, i64, bool)> = Vec::new();
        for (k, r) in results.iter().enumerate() {
            let name = match &self.slots[k].level {
                Some(_) => self
                    .table
                    .seats()
                    .get(k)
                    .map_or_else(|| format!("Seat {}", k + 1), |i| i.name.clone()),
                None => person(&self.slots[k], k).name,
            };
            match sides.iter_mut().find(|s| s.1 == r.side) {
                Some(side) => side.2 = format!("{} & {name}", side.2),
                None => sides.push((places[k], r.side, name, r.score, r.won)),
            }
        }
        sides.sort_by_key(|s| (s.0, s.1));
        let scores: Vec<String> = sides
            .iter()
            .map(|(_, _, names, score, _)| format!("{names} {score}"))
            .collect();
        let winners: Vec<&str> = sides.iter().filter(|s| s.4).map(|s| s.2.as_str()).collect();
        match winners.as_slice() {
            [] => format!("The game ended: {}.", scores.join(", ")),
            w => format!("{} won: {}.", w.join(" and "), scores.join(", ")),
        }
    }

    /// The notes for the people not at the table at its end: `story`,
    /// and for those who abandoned it, that it counts so.
    fn endings(&self, story: &str, abandoned: &[bool]) -> Vec<EndingNote> {
        (0..self.slots.len())
            .filter(|&k| self.slots[k].level.is_none())
            .filter(|&k| !self.seat_connected(k))
            .filter_map(|k| {
                let name = self.slots[k].owner.clone()?;
                let quit = abandoned.get(k).copied().unwrap_or(false);
                let why = if quit {
                    " You had left, so the game counts as abandoned."
                } else {
                    ""
                };
                Some(EndingNote {
                    name,
                    abandoned: quit,
                    summary: format!("{story}{why}"),
                })
            })
            .collect()
    }

    async fn finish(&mut self) -> Result<(), StoreError> {
        self.status = TableStatus::Over;
        let results = G::results(self.table.state());
        let places = crate::games::places(&results);
        let abandoned = self.abandoners();
        let seats = self.table.seats().to_vec();
        let rows: Vec<SeatRow> = results
            .iter()
            .enumerate()
            .map(|(k, r)| SeatRow {
                name: self.result_name(k),
                computer: self.slots[k].level.is_some(),
                score: r.score,
                won: r.won,
                side: r.side,
                place: places[k],
                abandoned: abandoned[k],
            })
            .collect();
        let people: Vec<SeatInfo> = seats
            .iter()
            .enumerate()
            .map(|(k, info)| match &self.slots[k].owner {
                Some(owner) => SeatInfo::human(owner.clone()),
                None => info.clone(),
            })
            .collect();
        let story = self.story(&results, &places);
        let score =
            crate::scores::for_database::<G>(&self.shared, self.table.state(), &people, &abandoned);
        let game = FinishedGame {
            results: rows,
            score,
            category: self.category,
            endings: self.endings(&story, &abandoned),
            forfeit: None,
        };
        let changes = self.shared.store.finish(self.id, game).await?;
        for k in 0..self.slots.len() {
            let name = self.result_name(k);
            if let Some(c) = changes.iter().find(|c| c.name == name) {
                self.slots[k].rating = Some(c.after);
            }
        }
        let state = self.table.state().clone();
        if let Err(e) = crate::scores::write::<G>(&self.shared, state, people, abandoned).await {
            tracing::error!(table = self.id, error = %e, "cannot record the scores");
        }
        tracing::info!(table = self.id, "game over");
        self.broadcast();
        Ok(())
    }

    /// Nobody came back to the paused game in time: the table closes
    /// without a result, and its people are told when they come back.
    async fn close_abandoned(&mut self) -> Result<(), StoreError> {
        let hours = self.shared.config.abandon_after.as_secs_f64() / 3600.0;
        let after = if hours >= 1.0 {
            format!("{} hours", hours.round())
        } else {
            format!("{} seconds", self.shared.config.abandon_after.as_secs())
        };
        let story = format!(
            "The table was closed: nobody came back to the game for {after}. \
             No result was recorded for anyone."
        );
        let endings = (0..self.slots.len())
            .filter_map(|k| {
                Some(EndingNote {
                    name: self.slots[k].owner.clone()?,
                    abandoned: false,
                    summary: story.clone(),
                })
            })
            .collect();
        self.shared
            .store
            .close(self.id, Outcome::Abandoned, endings)
            .await?;
        self.status = TableStatus::Over;
        self.paused_since = None;
        tracing::info!(
            table = self.id,
            "nobody came back to the game: the table closes as abandoned"
        );
        self.broadcast();
        Ok(())
    }

    /// Reads the ratings of the table's players (a rated table's), for the
    /// lobby and the table to show.
    async fn load_ratings(&mut self) {
        let Some(category) = self.category else {
            return;
        };
        let taken = |slot: &Slot| slot.level.is_some() || slot.owner.is_some();
        let names: Vec<String> = (0..self.slots.len())
            .filter(|&k| taken(&self.slots[k]))
            .map(|k| self.result_name(k))
            .collect();
        match self.shared.store.ratings(category, names).await {
            Ok(rows) => {
                let now = crate::ratings::now();
                for k in 0..self.slots.len() {
                    let rating = taken(&self.slots[k])
                        .then(|| crate::ratings::of(&rows, category, &self.result_name(k), now));
                    self.slots[k].rating = rating;
                }
            }
            Err(e) => {
                tracing::warn!(table = self.id, error = %e, "cannot read the players' ratings")
            }
        }
    }

    /// Whether seat `k` has a connection.
    fn seat_connected(&self, k: usize) -> bool {
        self.conns.values().any(|c| c.viewer == Viewer::Seat(k))
    }

    /// Whether some person's seat has a connection (spectators do not
    /// count: a table only they follow is paused). A bot's seat is a
    /// person's: a table of bots and computers plays while a bot is at it.
    fn person_connected(&self) -> bool {
        self.conns
            .values()
            .any(|c| matches!(c.viewer, Viewer::Seat(_)))
    }

    fn connected_people(&self) -> Vec<usize> {
        let mut seats: Vec<usize> = self
            .conns
            .values()
            .filter_map(|c| match c.viewer {
                Viewer::Seat(s) if !self.slots[s].away => Some(s),
                _ => None,
            })
            .collect();
        seats.sort_unstable();
        seats.dedup();
        seats
    }

    async fn handle_cmd(&mut self, cmd: Cmd) -> Result<(), StoreError> {
        match cmd {
            Cmd::Join {
                conn,
                name,
                out,
                seat,
                code,
                since,
                bot,
            } => {
                let asked = Asked {
                    seat,
                    code,
                    since,
                    bot,
                };
                self.join(conn, name, out, asked).await
            }
            Cmd::Decline {
                conn: _,
                name,
                out,
                reason,
            } => self.decline(name, out, reason).await,
            Cmd::Watch {
                conn,
                name,
                out,
                code,
                since,
            } => {
                if !self.may_enter(&name, code.as_deref()) {
                    self.refuse(
                        &out,
                        ErrorCode::NoSuchTable,
                        "there is no such table".into(),
                        None,
                    );
                    return Ok(());
                }
                let shown = self.table.event_count();
                let from = self.first_event_after(since);
                let observation = self.observation(Viewer::Spectator, from);
                let before = self.conns.insert(
                    conn,
                    Seated {
                        viewer: Viewer::Spectator,
                        out: out.clone(),
                        shown,
                    },
                );
                // The lobby counts the spectator before the spectator hears
                // of it, as it does a new player.
                self.publish();
                out.send_msg(&ServerMessage::Watching {
                    table: self.id,
                    seq: self.seq(),
                    observation,
                });
                // A player who turns spectator has left the seat.
                if let Some(Seated {
                    viewer: Viewer::Seat(s),
                    ..
                }) = before
                {
                    self.seat_emptied(s);
                    self.broadcast();
                }
                Ok(())
            }
            Cmd::Move {
                conn,
                out,
                id,
                action,
                at,
            } => self.person_move(conn, out, id, action, at).await,
            Cmd::Ready { conn, out } => {
                match self.conns.get(&conn).map(|c| c.viewer) {
                    Some(Viewer::Seat(s)) if self.status != TableStatus::Over => {
                        // Only between hands: a late press after a deal must
                        // not count for the next hand-over.
                        if self.table.turn() == Turn::Host {
                            self.ready.insert(s);
                        }
                    }
                    Some(Viewer::Seat(_)) => {
                        self.refuse(&out, ErrorCode::GameOver, "the game is over".into(), None);
                    }
                    _ => {
                        let why = "you have no seat at this table".to_string();
                        self.refuse(&out, ErrorCode::NotSeated, why, None);
                    }
                }
                Ok(())
            }
            Cmd::Leave { conn, out } => {
                let left = self.conns.remove(&conn);
                if left.is_none() {
                    let why = "you neither sit at nor watch this table".to_string();
                    self.refuse(&out, ErrorCode::NotSeated, why, None);
                    return Ok(());
                }
                if let Some(Seated {
                    viewer: Viewer::Seat(s),
                    ..
                }) = left
                {
                    if self.arena_bot_gone(s) {
                        out.send_msg(&ServerMessage::Left { table: self.id });
                        return self.forfeit(s, "left the game".into()).await;
                    }
                    if self.status == TableStatus::Waiting {
                        self.free_seat(s).await?;
                    } else {
                        self.seat_emptied(s);
                    }
                }
                // As for a join: the lobby has the seat free (and a private
                // table no longer listed to the leaver) before `left` says so.
                self.publish();
                out.send_msg(&ServerMessage::Left { table: self.id });
                self.broadcast();
                Ok(())
            }
            Cmd::LeaseLost => Err(StoreError::LeaseLost(self.id)),
            Cmd::Gone { conn } => {
                if let Some(Seated {
                    viewer: Viewer::Seat(s),
                    ..
                }) = self.conns.remove(&conn)
                {
                    if self.arena_bot_gone(s) {
                        return self.forfeit(s, "its connection closed".into()).await;
                    }
                    self.seat_emptied(s);
                    self.broadcast();
                } else {
                    self.publish();
                }
                Ok(())
            }
        }
    }

    /// Whether `seat` is an arena bot's: never played by the stand-in (it
    /// has no away clock; its decision clock makes it lose instead).
    fn arena_bot(&self, seat: usize) -> bool {
        self.arena.is_some() && self.slots[seat].bot
    }

    /// Whether `seat` is an arena bot's whose last connection at the table
    /// just went before the game's end: it loses the game.
    fn arena_bot_gone(&self, seat: usize) -> bool {
        self.arena_bot(seat) && self.status != TableStatus::Over && !self.seat_connected(seat)
    }

    /// The last connection of a seat went. Before the game starts its
    /// away clock starts (the seat is given up when it runs out). During
    /// the game it starts only while another person is at the table: with
    /// nobody left the game pauses, and every clock stops.
    fn seat_emptied(&mut self, seat: usize) {
        if self.seat_connected(seat) || self.slots[seat].away || self.arena_bot(seat) {
            return;
        }
        match self.status {
            TableStatus::Waiting => {
                self.slots[seat].away_at = Some(Instant::now() + self.shared.config.away);
            }
            TableStatus::Playing if self.person_connected() => {
                self.slots[seat].away_at = Some(Instant::now() + self.shared.config.away);
            }
            TableStatus::Playing => {
                for slot in &mut self.slots {
                    slot.away_at = None;
                }
            }
            TableStatus::Over => {}
        }
    }

    /// A person is at the table again during the game: the seats of the
    /// others who are absent get their away time from now.
    fn start_away_clocks(&mut self) {
        if self.status != TableStatus::Playing {
            return;
        }
        let at = Instant::now() + self.shared.config.away;
        for k in 0..self.slots.len() {
            let connected = self.seat_connected(k) || self.arena_bot(k);
            let slot = &mut self.slots[k];
            if slot.level.is_none() && !slot.away && !connected && slot.away_at.is_none() {
                slot.away_at = Some(at);
            }
        }
    }

    fn may_enter(&self, name: &str, code: Option<&str>) -> bool {
        match &self.code {
            None => true,
            Some(c) => {
                code == Some(c.as_str())
                    || self.slots.iter().any(|s| s.owner.as_deref() == Some(name))
            }
        }
    }

    /// The number of the first event a viewer that last saw sequence
    /// number `since` has not seen; without a number, the next one (its
    /// observation is complete without the past events).
    fn first_event_after(&self, since: Option<u64>) -> usize {
        since
            .and_then(|s| usize::try_from(s).ok())
            .and_then(|s| self.events_at.get(s).copied())
            .unwrap_or(self.table.event_count())
    }

    fn observation(&self, viewer: Viewer, from: usize) -> Value {
        let observation =
            serde_json::to_value(self.table.observe_since(viewer, from)).unwrap_or(Value::Null);
        if self.status == TableStatus::Waiting {
            return no_moves_yet(observation);
        }
        observation
    }

    fn refuse(&self, out: &Outbox, code: ErrorCode, message: String, id: Option<u64>) {
        out.send_msg(&ServerMessage::Error(ErrorBody {
            code,
            message,
            id,
            table: Some(self.id),
        }));
    }

    async fn join(
        &mut self,
        conn: ConnId,
        name: String,
        out: Outbox,
        asked: Asked,
    ) -> Result<(), StoreError> {
        let Asked {
            seat,
            code,
            since,
            bot,
        } = asked;
        if !self.may_enter(&name, code.as_deref()) {
            self.refuse(
                &out,
                ErrorCode::NoSuchTable,
                "there is no such table".into(),
                None,
            );
            return Ok(());
        }
        if self.status == TableStatus::Over {
            let why = "the game at this table is over: watch it instead".to_string();
            self.refuse(&out, ErrorCode::GameOver, why, None);
            return Ok(());
        }
        // A bot's own seat is the one kept for it, found first.
        let mine = self
            .slots
            .iter()
            .position(|s| s.owner.as_deref() == Some(name.as_str()));
        if bot && mine.is_none() && !self.bots_allowed {
            let why = format!(
                "table {} does not take bots: a person invites a bot with \"play against\"",
                self.id
            );
            self.refuse(&out, ErrorCode::NoSuchSeat, why, None);
            return Ok(());
        }
        let seat = match (seat, mine) {
            (Some(s), Some(m)) if s != m => {
                let why = match self.slots[m].invited {
                    true => format!("seat {} of this table is kept for you", m + 1),
                    false => format!("you already sit at seat {} of this table", m + 1),
                };
                self.refuse(&out, ErrorCode::SeatTaken, why, None);
                return Ok(());
            }
            (_, Some(m)) => m,
            (Some(s), None) => match self.slots.get(s) {
                None => {
                    let why = format!("there is no seat {} at this table", s + 1);
                    self.refuse(&out, ErrorCode::NoSuchSeat, why, None);
                    return Ok(());
                }
                Some(slot) if slot.level.is_some() => {
                    let why = format!("seat {} is a computer player's", s + 1);
                    self.refuse(&out, ErrorCode::NoSuchSeat, why, None);
                    return Ok(());
                }
                Some(slot) if slot.owner.is_some() => {
                    let why = match (&slot.owner, slot.invited) {
                        (Some(bot), true) => format!("seat {} is kept for the bot {bot}", s + 1),
                        _ => format!("seat {} is taken", s + 1),
                    };
                    self.refuse(&out, ErrorCode::SeatTaken, why, None);
                    return Ok(());
                }
                Some(_) => s,
            },
            (None, None) => {
                match self
                    .slots
                    .iter()
                    .position(|s| s.level.is_none() && s.owner.is_none())
                {
                    Some(s) => s,
                    None => {
                        self.refuse(
                            &out,
                            ErrorCode::TableFull,
                            "every seat of this table is taken".into(),
                            None,
                        );
                        return Ok(());
                    }
                }
            }
        };
        if self.slots[seat].owner.is_none() {
            self.shared
                .store
                .set_owner(self.id, seat, Some(name.clone()))
                .await?;
            self.slots[seat].owner = Some(name.clone());
            let _ = self
                .table
                .seat(seat, person(&self.slots[seat], seat), Player::Person);
            self.slots[seat].bot = bot;
            self.load_ratings().await;
        }
        // An invited bot has come (a bot's name is a bot's everywhere).
        self.slots[seat].invited = false;
        self.slots[seat].bot |= bot;
        let full = self
            .slots
            .iter()
            .all(|s| s.level.is_some() || (s.owner.is_some() && !s.invited));
        if full && self.status == TableStatus::Waiting {
            self.shared
                .store
                .set_status(self.id, TableStatus::Playing)
                .await?;
            self.status = TableStatus::Playing;
            tracing::info!(table = self.id, "the game starts");
        }
        if self.slots[seat].away && !self.slots[seat].replaced {
            // Back: the seat is the person's again.
            self.slots[seat].away = false;
            let _ = self
                .table
                .seat(seat, person(&self.slots[seat], seat), Player::Person);
        }
        self.slots[seat].away_at = None;
        // A second connection of the same seat replaces the first.
        let before: Vec<ConnId> = self
            .conns
            .iter()
            .filter(|&(&k, c)| k != conn && c.viewer == Viewer::Seat(seat))
            .map(|(&k, _)| k)
            .collect();
        for k in before {
            if let Some(old) = self.conns.remove(&k) {
                old.out.send_msg(&ServerMessage::Left { table: self.id });
            }
        }
        let from = self.first_event_after(since);
        let observation = self.observation(Viewer::Seat(seat), from);
        self.conns.insert(
            conn,
            Seated {
                viewer: Viewer::Seat(seat),
                out: out.clone(),
                shown: self.table.event_count(),
            },
        );
        self.start_away_clocks();
        // The lobby shows the new player before the player hears of it: a
        // list asked for right after `joined` has the seat taken (and a
        // private table listed to its new player).
        self.publish();
        out.send_msg(&ServerMessage::Joined {
            table: self.id,
            seat,
            seq: self.seq(),
            observation,
        });
        self.broadcast();
        Ok(())
    }

    async fn person_move(
        &mut self,
        conn: ConnId,
        out: Outbox,
        id: u64,
        action: Value,
        at: Instant,
    ) -> Result<(), StoreError> {
        let Some(Seated {
            viewer: Viewer::Seat(seat),
            ..
        }) = self.conns.get(&conn)
        else {
            let why = "you have no seat at this table: join it first".to_string();
            self.refuse(&out, ErrorCode::NotSeated, why, Some(id));
            return Ok(());
        };
        let seat = *seat;
        if self.slots[seat].replaced && self.status == TableStatus::Playing {
            let why = format!(
                "the stand-in plays your seat for the rest of this game: you took more than {} s over a decision",
                seconds(self.shared.config.decision_limit)
            );
            self.refuse(&out, ErrorCode::NotYourTurn, why, Some(id));
            return Ok(());
        }
        if self.waiting.iter().any(|(s, h)| *s == seat && h.id == id) {
            // Sent again while it waits: it is answered once played.
            return Ok(());
        }
        if let Some(&(_, seq)) = self.accepted[seat].iter().find(|(i, _)| *i == id) {
            // Sent again after a drop: the first answer, nothing applied.
            out.send_msg(&ServerMessage::Ack {
                table: self.id,
                id,
                seq,
            });
            return Ok(());
        }
        match self.status {
            TableStatus::Waiting => {
                let free = self
                    .slots
                    .iter()
                    .filter(|s| s.level.is_none() && (s.owner.is_none() || s.invited))
                    .count();
                let why = format!("the game starts when every seat is taken ({free} free)");
                self.refuse(&out, ErrorCode::Waiting, why, Some(id));
                return Ok(());
            }
            TableStatus::Over => {
                self.refuse(
                    &out,
                    ErrorCode::GameOver,
                    "the game is over".into(),
                    Some(id),
                );
                return Ok(());
            }
            TableStatus::Playing => {}
        }
        let action = G::read_action(&action);
        if self.must_wait(seat) {
            self.hold(seat, out, id, action, at);
            return Ok(());
        }
        let action = match action {
            Ok(a) => a,
            Err(why) => {
                self.refuse(&out, ErrorCode::BadMessage, why, Some(id));
                return Ok(());
            }
        };
        self.try_move(seat, out, id, action, at).await
    }

    /// Whether a move of `seat` must wait: during a window, every move
    /// but a seat's answer to its own chance; without windows (a zero
    /// `coup_fourre_window`), every move of another seat while a chance is
    /// pending, which then tells that there is one.
    fn must_wait(&self, seat: usize) -> bool {
        let secret = G::secret_decision(self.table.state());
        if secret && self.table.turn() == Turn::Seat(seat) {
            return false;
        }
        self.window.is_some() || (secret && self.shared.config.coup_fourre_window.is_zero())
    }

    /// Keeps a move until the table may answer it.
    fn hold(
        &mut self,
        seat: usize,
        out: Outbox,
        id: u64,
        action: Result<G::Action, String>,
        at: Instant,
    ) {
        if self.waiting.iter().filter(|(s, _)| *s == seat).count() >= MAX_WAITING {
            let why = "too many moves of yours are waiting".to_string();
            self.refuse(&out, ErrorCode::NotYourTurn, why, Some(id));
            return;
        }
        self.waiting.push_back((
            seat,
            Held {
                out,
                id,
                action,
                at,
            },
        ));
    }

    /// After a move everybody sees: a pause if a hidden decision may
    /// follow it, decision or not. `seats` may hold one (the attacked
    /// side); `next` is the seat the others see to act.
    fn window_after(&mut self, seats: &[usize], next: Option<usize>) {
        let length = self.shared.config.coup_fourre_window;
        if length.is_zero() || seats.is_empty() {
            return;
        }
        let person = |k: usize| matches!(self.table.player(k), Some(Player::Person));
        // A person whose chance comes with its own turn takes its time as
        // on any turn: nothing waits for it that would not wait anyway.
        if let [only] = seats
            && Some(*only) == next
            && person(*only)
        {
            return;
        }
        let length = if seats.iter().any(|&k| person(k)) {
            length
        } else {
            length.min(COMPUTER_WINDOW)
        };
        self.open_window(length);
    }

    fn open_window(&mut self, length: Duration) {
        if length.is_zero() {
            return;
        }
        let now = Instant::now();
        let margin = (length / 4).min(Duration::from_millis(100));
        self.window = Some(Window {
            opened: now,
            decide_by: now + length - margin,
            ends: now + length,
        });
    }

    /// Plays a person's move, or refuses it with the engine's reason.
    async fn try_move(
        &mut self,
        seat: usize,
        out: Outbox,
        id: u64,
        action: G::Action,
        at: Instant,
    ) -> Result<(), StoreError> {
        if let Err(e) = self.table.act(seat, action) {
            // An arena's bot loses the game by an illegal move.
            let forfeit = match &e {
                TableError::Illegal { reason, .. }
                    if self.arena.is_some() && self.slots[seat].bot =>
                {
                    Some(format!("sent an illegal move: {reason}"))
                }
                _ => None,
            };
            let (code, why) = match e {
                TableError::Illegal { reason, .. } => (ErrorCode::Illegal, reason.to_string()),
                TableError::NotYourTurn { turn, .. } => (
                    ErrorCode::NotYourTurn,
                    match turn {
                        // Who is to play is not named: a seat deciding on a
                        // coup fourré out of turn must not be told apart from
                        // the seat everybody else sees to act.
                        Turn::Seat(_) => "it is not your turn".to_string(),
                        Turn::Host => "the hand is over: the next one is being dealt".into(),
                        Turn::Over => "the game is over".into(),
                    },
                ),
                other => (ErrorCode::NoSuchSeat, other.to_string()),
            };
            self.refuse(&out, code, why, Some(id));
            if let Some(reason) = forfeit {
                return self.forfeit(seat, reason).await;
            }
            return Ok(());
        }
        self.record(Some(seat), action, Some(id), false).await?;
        out.send_msg(&ServerMessage::Ack {
            table: self.id,
            id,
            seq: self.seq(),
        });
        self.shared.metrics.observe_move(at.elapsed());
        self.broadcast_news();
        Ok(())
    }

    /// Answers the moves that waited, in the order they came, as far as
    /// the table may answer them now.
    async fn release_waiting(&mut self) -> Result<(), StoreError> {
        while let Some(&(seat, _)) = self.waiting.front() {
            // A move played meanwhile may have opened a new window.
            if self.must_wait(seat) {
                break;
            }
            let Some((seat, h)) = self.waiting.pop_front() else {
                break;
            };
            match h.action {
                Ok(action) => self.try_move(seat, h.out, h.id, action, h.at).await?,
                Err(why) => self.refuse(&h.out, ErrorCode::BadMessage, why, Some(h.id)),
            }
        }
        Ok(())
    }

    /// The seats as the lobby and the table show them.
    fn seat_summaries(&self) -> Vec<SeatSummary> {
        let now = Instant::now();
        self.slots
            .iter()
            .enumerate()
            .map(|(k, slot)| {
                let connected = self.seat_connected(k);
                let level = match (&slot.level, slot.away) {
                    (Some(level), _) => Some(level.clone()),
                    (None, true) => Some(G::stand_in().to_string()),
                    (None, false) => None,
                };
                SeatSummary {
                    kind: if slot.level.is_some() {
                        SeatKindSummary::Computer
                    } else {
                        SeatKindSummary::Human
                    },
                    level,
                    player: match &slot.level {
                        Some(_) => self.table.seats().get(k).map(|i| i.name.clone()),
                        None => slot.owner.clone(),
                    },
                    connected,
                    away: slot.away,
                    rating: slot
                        .rating
                        .filter(|_| slot.level.is_some() || slot.owner.is_some())
                        .map(crate::ratings::brief),
                    stand_in_in: slot
                        .away_at
                        .filter(|_| self.status == TableStatus::Playing && !slot.away)
                        .map(|at| at.saturating_duration_since(now).as_secs_f64().ceil() as u64),
                    bot: slot.bot,
                    invited: slot.invited,
                }
            })
            .collect()
    }

    /// The table's sequence number: its public moves so far.
    fn seq(&self) -> u64 {
        self.events_at.len().saturating_sub(1) as u64
    }

    /// Sends every connection its observation with the events it has not
    /// seen (after a seat change), and refreshes the lobby line.
    fn broadcast(&mut self) {
        self.send_updates(true);
    }

    /// After a move: sends an update to every connection that has
    /// something new to see, and to nobody else (a move that only its
    /// maker sees is not announced to the others by a message).
    fn broadcast_news(&mut self) {
        self.send_updates(false);
    }

    fn send_updates(&mut self, everybody: bool) {
        let seats = self.seat_summaries();
        let seq = self.seq();
        let count = self.table.event_count();
        // Spectators who have seen the same events get the same text.
        let mut made: HashMap<(Viewer, usize), Option<Arc<str>>> = HashMap::new();
        let waiting = self.status == TableStatus::Waiting;
        for c in self.conns.values_mut() {
            let text = made
                .entry((c.viewer, c.shown))
                .or_insert_with(|| {
                    if !everybody && !self.table.has_news(c.viewer, c.shown) {
                        return None;
                    }
                    if waiting {
                        let observation =
                            serde_json::to_value(self.table.observe_since(c.viewer, c.shown))
                                .unwrap_or(Value::Null);
                        let observation = no_moves_yet(observation);
                        return Some(update_text(self.id, seq, &observation, &seats));
                    }
                    let observation = self.table.observe_since(c.viewer, c.shown);
                    Some(update_text(self.id, seq, &observation, &seats))
                })
                .clone();
            if let Some(text) = text {
                c.out.send(text);
            }
            c.shown = count;
        }
        self.publish();
    }

    /// Refreshes the lobby line.
    fn publish(&self) {
        let summary = TableSummary {
            id: self.id,
            game: G::KIND,
            ruleset: G::describe(&self.setup, self.slots.len()),
            setup: self.setup_json.clone(),
            seats: self.seat_summaries(),
            status: self.status,
            private: self.code.is_some(),
            spectators: self
                .conns
                .values()
                .filter(|c| c.viewer == Viewer::Spectator)
                .count(),
            seq: self.seq(),
            rated: self.category.is_some(),
            bots: self.bots_allowed,
            arena: self.arena.as_ref().map(|a| a.arena.clone()),
        };
        if let Ok(mut s) = self.summary.lock() {
            *s = summary;
        }
    }
}

/// Whether the events of a table from number `from` on include one that
/// everybody sees.
fn public<G: ServerGame>(table: &Table<G>, from: usize) -> bool {
    table.has_news(Viewer::Spectator, from)
}

/// An observation shown while the table waits for its seats: no legal
/// moves, since nobody may move yet. A seat shown them would make one, be
/// refused, and (a program that acts on new observations only) wait for
/// ever once the game starts.
fn no_moves_yet(mut observation: Value) -> Value {
    if let Some(legal) = observation.get_mut("legal") {
        *legal = Value::Array(Vec::new());
    }
    observation
}

/// An `update` as [`ServerMessage::Update`] writes it, but serialized
/// straight from the observation: building a `serde_json::Value` tree
/// first, then writing and dropping it, was most of a move's cost under
/// load. (The observation's keys come in the order of its fields rather
/// than sorted; JSON readers do not care.)
fn update_text<O: Serialize>(
    table: TableId,
    seq: u64,
    observation: &O,
    seats: &[SeatSummary],
) -> Arc<str> {
    #[derive(Serialize)]
    struct Update<'a, O> {
        #[serde(rename = "type")]
        kind: &'static str,
        table: TableId,
        seq: u64,
        observation: &'a O,
        seats: &'a [SeatSummary],
    }
    let update = Update {
        kind: "update",
        table,
        seq,
        observation,
        seats,
    };
    match serde_json::to_string(&update) {
        Ok(text) => text.into(),
        // As the `Value` path did: an observation that cannot be written
        // is sent as null rather than not at all.
        Err(_) => ServerMessage::Update {
            table,
            seq,
            observation: Value::Null,
            seats: seats.to_vec(),
        }
        .to_json()
        .into(),
    }
}

fn remember(ids: &mut VecDeque<(u64, u64)>, id: u64, seq: u64) {
    if ids.len() == REMEMBERED {
        ids.pop_front();
    }
    ids.push_back((id, seq));
}

fn empty_summary(id: TableId, game: GameKind) -> TableSummary {
    TableSummary {
        id,
        game,
        ruleset: String::new(),
        setup: Value::Null,
        seats: Vec::new(),
        status: TableStatus::Waiting,
        private: false,
        spectators: 0,
        seq: 0,
        rated: false,
        bots: false,
        arena: None,
    }
}

#[cfg(test)]
mod bot_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use mille_engine::{Action, Card, GameConfig, Mille, Phase, Scenario};

    #[test]
    fn a_declined_coup_fourre_is_not_a_public_move() {
        let config = GameConfig::default();
        let first = mille_engine::Rules::new(config)
            .expect("bsd")
            .seat(0)
            .expect("seat 0");
        let state = Scenario::new(config)
            .expect("bsd")
            .hand(
                0,
                &[
                    Card::Stop,
                    Card::D25,
                    Card::D50,
                    Card::D75,
                    Card::D100,
                    Card::Go,
                ],
            )
            .hand(
                1,
                &[
                    Card::RightOfWay,
                    Card::D25,
                    Card::D50,
                    Card::D75,
                    Card::D100,
                    Card::Go,
                ],
            )
            .battle(1, &[Card::Go])
            .deck(&[Card::D200, Card::D200, Card::D200, Card::D200])
            .phase(Phase::Turn {
                seat: first,
                drawn: true,
            })
            .build();
        let mut table: Table<Mille> = Table::new(state, Vec::new());
        let before = table.event_count();
        table
            .act(
                0,
                Action::Play {
                    card: Card::Stop,
                    team: 1,
                },
            )
            .expect("the stop");
        assert!(public::<Mille>(&table, before), "a hazard is seen by all");
        assert_eq!(table.turn(), Turn::Seat(1), "seat 1 may call coup fourré");
        let before = table.event_count();
        table
            .act(1, Action::DeclineCoupFourre)
            .expect("the decline");
        assert!(
            !public::<Mille>(&table, before),
            "only its maker sees a declined coup fourré"
        );
        let before = table.event_count();
        table.act(1, Action::Draw).expect("the draw");
        assert!(public::<Mille>(&table, before), "a draw is seen by all");
    }

    #[test]
    fn an_update_reads_back_as_the_protocol_writes_it() {
        let setup = <Mille as ServerGame>::setup(&Value::Null).expect("setup");
        let state = <Mille as ServerGame>::start(&setup, 2, 7).expect("state");
        let players = vec![
            (SeatInfo::human("ann"), Player::<Mille>::Person),
            (SeatInfo::human("bob"), Player::<Mille>::Person),
        ];
        let mut table = Table::new(state, players);
        let mover = match table.turn() {
            Turn::Seat(s) => s,
            other => panic!("a seat starts, not {other:?}"),
        };
        let draw = <Mille as ServerGame>::read_action(&Value::from("draw")).expect("draw");
        table.act(mover, draw).expect("a draw is legal first");
        let seats = vec![SeatSummary {
            kind: SeatKindSummary::Human,
            level: None,
            player: Some("ann".into()),
            connected: true,
            away: false,
            rating: None,
            stand_in_in: None,
            bot: false,
            invited: false,
        }];
        for viewer in [Viewer::Seat(0), Viewer::Seat(1), Viewer::Spectator] {
            let observation = table.observe_since(viewer, 0);
            let text = update_text(12, 1, &observation, &seats);
            let expected = ServerMessage::Update {
                table: 12,
                seq: 1,
                observation: serde_json::to_value(&observation).expect("value"),
                seats: seats.clone(),
            };
            let read: ServerMessage = serde_json::from_str(&text).expect("an update");
            assert_eq!(read, expected, "{viewer:?}");
            assert!(
                text.starts_with(r#"{"type":"update","table":12,"seq":1,"#),
                "{text}"
            );
        }
    }
}
