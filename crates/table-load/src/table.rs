//! One table of the load, as a task: its two connections (a name each),
//! the table they open and play to its end (then another), moves sent on
//! the table's schedule, and what it measured.

use crate::plan::{GameChoice, Plan};
use crate::player::{Incoming, Kind, Phase, View, choose};
use crate::stats::{Errors, Tally};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use table_client::protocol::{ClientMessage, CreateTable, GameKind, SeatRequest};
use table_client::{ClientError, Connection};
use tokio::time::Instant;

/// How long an answer (to `create`, `join`, a move) may take before the
/// table counts it as an error and stops.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// Figures every table adds to as it goes, for the progress lines.
#[derive(Debug, Default)]
pub struct Live {
    /// Tables playing now.
    pub playing: AtomicU64,
    /// Moves acknowledged.
    pub acked: AtomicU64,
    /// Errors seen.
    pub errors: AtomicU64,
    /// Games played to their end.
    pub games: AtomicU64,
}

/// What one table measured.
#[derive(Debug, Default)]
pub struct Report {
    /// Per stage, the round trips of the moves sent in its window.
    pub stages: Vec<Tally>,
    /// The errors seen.
    pub errors: Errors,
}

/// What a table task is given.
pub struct Setting {
    /// The run's plan.
    pub plan: Arc<Plan>,
    /// When the run started.
    pub start: Instant,
    /// This run's mark in the players' names.
    pub run: String,
    /// The shared progress figures.
    pub live: Arc<Live>,
}

/// Why a table stopped early (already counted as an error).
struct Stop;

/// One seat's connection and what it last saw.
struct Seat {
    conn: Connection,
    view: Option<View>,
    /// The table's sequence number of `view`.
    seq: u64,
    /// The sequence number at which this seat said `ready`.
    ready_at: Option<u64>,
    last_sent: Instant,
    next_id: u64,
}

/// The move awaiting its `ack`.
struct Pending {
    id: u64,
    sent: Instant,
}

/// The table being played.
struct Game {
    id: u64,
    /// The highest sequence number heard of.
    seq: u64,
    pending: Option<Pending>,
}

struct Runner {
    k: usize,
    setting: Setting,
    report: Report,
    /// When the next move is due.
    due: Instant,
    /// When the run ends.
    end: Instant,
    ping_every: Duration,
}

/// Runs table number `k` until the run's end; answers what it measured.
pub async fn run(k: usize, setting: Setting) -> Report {
    let plan = Arc::clone(&setting.plan);
    let opens = setting.start + plan.opening(k);
    let end = setting.start + plan.end();
    let mut runner = Runner {
        k,
        report: Report {
            stages: vec![Tally::default(); plan.stages.len()],
            errors: Errors::default(),
        },
        setting,
        due: opens,
        end,
        ping_every: Duration::from_secs(30),
    };
    tokio::time::sleep_until(opens).await;
    if let Ok(mut seats) = runner.connect().await {
        runner.setting.live.playing.fetch_add(1, Ordering::Relaxed);
        let _ = runner.play(&mut seats).await;
        runner.setting.live.playing.fetch_sub(1, Ordering::Relaxed);
        let [a, b] = seats;
        tokio::join!(a.conn.close(), b.conn.close());
    }
    runner.report
}

impl Runner {
    fn error(&mut self, kind: &str, example: &str) {
        self.setting.live.errors.fetch_add(1, Ordering::Relaxed);
        self.report.errors.add(kind, example);
    }

    fn lost(&mut self, e: &ClientError) -> Stop {
        let kind = match e {
            ClientError::Closed { .. } => "closed",
            ClientError::Timeout { .. } => "timeout",
            ClientError::Refused(_) => "refused",
            _ => "connection",
        };
        self.error(kind, &e.to_string());
        Stop
    }

    /// Opens the two connections (each to its server, when there are
    /// several) and says hello under two new names.
    async fn connect(&mut self) -> Result<[Seat; 2], Stop> {
        let plan = Arc::clone(&self.setting.plan);
        let (a, b) = tokio::join!(
            Connection::open(plan.seat_target(self.k, 0)),
            Connection::open(plan.seat_target(self.k, 1))
        );
        let mut seats = Vec::with_capacity(2);
        for (conn, side) in [(a, 'a'), (b, 'b')] {
            let mut conn = conn.map_err(|e| self.lost(&e))?;
            let name = format!("ld{}-{}{side}", self.setting.run, self.k);
            let welcome = conn
                .hello(Some(&name), None)
                .await
                .map_err(|e| self.lost(&e))?;
            self.ping_every = Duration::from_secs(welcome.limits.idle_seconds.max(3) / 3);
            seats.push(Seat {
                conn,
                view: None,
                seq: 0,
                ready_at: None,
                last_sent: Instant::now(),
                next_id: move_ids_from(),
            });
        }
        let b = seats.pop().ok_or(Stop)?;
        let a = seats.pop().ok_or(Stop)?;
        Ok([a, b])
    }

    /// Plays table after table until the run's end.
    async fn play(&mut self, seats: &mut [Seat; 2]) -> Result<(), Stop> {
        while Instant::now() < self.end {
            let mut game = self.open(seats).await?;
            if self.moves(seats, &mut game).await? {
                self.setting.live.games.fetch_add(1, Ordering::Relaxed);
                for seat in seats.iter_mut() {
                    self.send(seat, &ClientMessage::Leave { table: game.id })
                        .await?;
                }
            }
        }
        Ok(())
    }

    async fn send(&mut self, seat: &mut Seat, msg: &ClientMessage) -> Result<(), Stop> {
        seat.last_sent = Instant::now();
        match seat.conn.send(msg).await {
            Ok(()) => Ok(()),
            Err(e) => Err(self.lost(&e)),
        }
    }

    /// The next message on `seat`'s connection, read, within the answer
    /// timeout.
    async fn next(&mut self, seat: &mut Seat) -> Result<Incoming, Stop> {
        match tokio::time::timeout(ANSWER_TIMEOUT, seat.conn.recv_raw()).await {
            Err(_) => {
                self.error("timeout", "no answer within 10 s");
                Err(Stop)
            }
            Ok(Err(e)) => Err(self.lost(&e)),
            Ok(Ok(text)) => self.read(&text),
        }
    }

    fn read(&mut self, text: &str) -> Result<Incoming, Stop> {
        Incoming::parse(text).map_err(|why| {
            self.error("unreadable", &why);
            Stop
        })
    }

    /// Opens a table for two people: the first seat creates it and sits,
    /// the second joins.
    async fn open(&mut self, seats: &mut [Seat; 2]) -> Result<Game, Stop> {
        let (game, setup) = match self.setting.plan.game {
            GameChoice::Mille => (
                GameKind::Mille,
                json!({"rules": "bsd", "players": 2, "stacking": false}),
            ),
            GameChoice::Cubes => (
                GameKind::Cubes,
                json!({"game": "standard", "jokers": "never"}),
            ),
        };
        let create = ClientMessage::Create(CreateTable {
            game,
            setup,
            seats: vec![SeatRequest::Human, SeatRequest::Human],
            private: false,
            sit: Some(0),
            rated: None,
            bots: false,
        });
        for seat in seats.iter_mut() {
            seat.view = None;
            seat.seq = 0;
            seat.ready_at = None;
        }
        let [a, b] = seats;
        self.send(a, &create).await?;
        let table = loop {
            let m = self.next(a).await?;
            match m.kind {
                Kind::Created => break m.table_id().ok_or(Stop)?,
                Kind::Error => return Err(self.refused(&m)),
                _ => {}
            }
        };
        let mut game = Game {
            id: table,
            seq: 0,
            pending: None,
        };
        self.await_joined(a, &mut game).await?;
        let join = ClientMessage::Join {
            table,
            seat: Some(1),
            code: None,
            since: None,
        };
        self.send(b, &join).await?;
        self.await_joined(b, &mut game).await?;
        Ok(game)
    }

    async fn await_joined(&mut self, seat: &mut Seat, game: &mut Game) -> Result<(), Stop> {
        loop {
            let m = self.next(seat).await?;
            if m.kind == Kind::Error {
                return Err(self.refused(&m));
            }
            let joined = m.kind == Kind::Joined && m.table_id() == Some(game.id);
            self.take(seat, game, m);
            if joined {
                return Ok(());
            }
        }
    }

    fn refused(&mut self, m: &Incoming) -> Stop {
        let code = m.code.as_deref().unwrap_or("error");
        let message = m.message.as_deref().unwrap_or("");
        self.error(code, message);
        Stop
    }

    /// Takes in a message about the table: an observation, an ack, an
    /// error. Messages about a table left earlier are skipped.
    fn take(&mut self, seat: &mut Seat, game: &mut Game, m: Incoming) {
        if m.kind == Kind::Error {
            if m.id.is_some() && m.id == game.pending.as_ref().map(|p| p.id) {
                game.pending = None;
            }
            self.refused(&m);
            return;
        }
        if m.table_id() != Some(game.id) {
            return;
        }
        match m.kind {
            Kind::Joined | Kind::Update => {
                let seq = m.seq.unwrap_or(0);
                game.seq = game.seq.max(seq);
                if seq >= seat.seq {
                    seat.seq = seq;
                    seat.view = m.observation;
                }
            }
            Kind::Ack => {
                game.seq = game.seq.max(m.seq.unwrap_or(0));
                if let Some(p) = game.pending.take_if(|p| Some(p.id) == m.id) {
                    let now = Instant::now();
                    self.setting.live.acked.fetch_add(1, Ordering::Relaxed);
                    let at = p.sent.saturating_duration_since(self.setting.start);
                    if let Some(stage) = self.setting.plan.measured_stage(at) {
                        self.report.stages[stage].add(now - p.sent);
                    }
                }
            }
            _ => {}
        }
    }

    /// Plays the table's moves on its schedule. Answers true when the game
    /// is over, false at the run's end.
    async fn moves(&mut self, seats: &mut [Seat; 2], game: &mut Game) -> Result<bool, Stop> {
        loop {
            let now = Instant::now();
            if now >= self.end {
                return Ok(false);
            }
            if game
                .pending
                .as_ref()
                .is_some_and(|p| now - p.sent > ANSWER_TIMEOUT)
            {
                self.error("timeout", "a move had no answer within 10 s");
                return Err(Stop);
            }
            // Only a seat that has seen the table's latest move decides.
            let current = |s: &Seat| s.seq == game.seq && s.view.is_some();
            let mut mover = None;
            if game.pending.is_none() {
                for (k, seat) in seats.iter_mut().enumerate() {
                    if !current(seat) {
                        continue;
                    }
                    let Some(view) = &seat.view else { continue };
                    match view.phase() {
                        Phase::Over => return Ok(true),
                        Phase::HandOver if seat.ready_at != Some(game.seq) => {
                            seat.ready_at = Some(game.seq);
                            self.send(seat, &ClientMessage::Ready { table: game.id })
                                .await?;
                        }
                        Phase::Playing if !view.legal.is_empty() => mover = Some(k),
                        _ => {}
                    }
                }
            }
            if let Some(k) = mover
                && now >= self.due
            {
                let seat = &mut seats[k];
                let action = seat
                    .view
                    .as_ref()
                    .and_then(|v| choose(&v.legal))
                    .cloned()
                    .unwrap_or(Value::Null);
                let id = seat.next_id;
                seat.next_id += 1;
                let sent = Instant::now();
                self.send(
                    seat,
                    &ClientMessage::Move {
                        table: game.id,
                        id,
                        action,
                    },
                )
                .await?;
                game.pending = Some(Pending { id, sent });
                let interval = self
                    .setting
                    .plan
                    .interval_at(sent.saturating_duration_since(self.setting.start));
                // On time, the schedule holds; late (a deal, a slow
                // answer), the next move is due at once, without a burst.
                self.due = (self.due + interval).max(sent);
                continue;
            }
            let mut wake = self.end.min(seats[0].last_sent + self.ping_every);
            wake = wake.min(seats[1].last_sent + self.ping_every);
            if mover.is_some() {
                wake = wake.min(self.due);
            }
            if let Some(p) = &game.pending {
                wake = wake.min(p.sent + ANSWER_TIMEOUT);
            }
            let woke = {
                let [a, b] = &mut *seats;
                tokio::select! {
                    t = a.conn.recv_raw() => Some((0, t)),
                    t = b.conn.recv_raw() => Some((1, t)),
                    () = tokio::time::sleep_until(wake) => None,
                }
            };
            let Some((k, text)) = woke else {
                for seat in seats.iter_mut() {
                    if Instant::now() >= seat.last_sent + self.ping_every {
                        self.send(seat, &ClientMessage::Ping).await?;
                    }
                }
                continue;
            };
            let text = text.map_err(|e| self.lost(&e))?;
            let m = self.read(&text)?;
            let seat = &mut seats[k];
            self.take(seat, game, m);
        }
    }
}

/// The first move id of a connection: milliseconds since 1970 (ids are
/// unique per seat at a table; a new table starts afresh anyway).
fn move_ids_from() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_millis() as u64)
}
