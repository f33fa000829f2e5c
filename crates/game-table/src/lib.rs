//! One table for every game of the suite: the only game loop.
//!
//! An engine implements [`Game`]: its full state, its actions, the events
//! an action causes (each with the [`Audience`] that may see it) and
//! [`Game::observe`], everything one seat may know and nothing more. A
//! [`Table`] owns one game: its state (with the state's seeded chance), its
//! seats (a [`Player`]: a person, whose moves arrive through
//! [`Table::act`], or a [`Bot`]), the action log (the game record) and the
//! events each viewer has not yet been shown. The terminal games, `mille
//! match`, `cubes sim` and the tuning harnesses drive their games through a
//! table, and so will the network server; `mille bot`, which answers one
//! decision at a time, asks the same bots through the same trait.
//!
//! ```text
//!   engines (mille, cubes)    State, Action, check/apply, observe(viewer)
//!      ^ implement Game
//!   Table<G>                  state + seats + action log + events;
//!      ^                      asks bots, checks every move with the engine
//!   hosts                     terminal UIs, match runner, simulations,
//!                             (the network server)
//!      ^
//!   clients                   hold an Observation, never a State
//! ```
//!
//! A bot's move is checked like anybody's: an illegal one is a
//! [`TableError::BotIllegal`] for the host to report, never replaced by
//! another move in silence.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Who may see an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Audience {
    /// Every seat and every spectator.
    All,
    /// This seat alone (the card it drew, a choice only it was offered).
    Only(usize),
    /// Everybody but this seat: the public side of an event whose private
    /// side goes to that seat.
    AllBut(usize),
}

impl Audience {
    /// Whether `viewer` sees an event meant for this audience.
    pub fn includes(self, viewer: Viewer) -> bool {
        match (self, viewer) {
            (Audience::All, _) => true,
            (Audience::Only(s), Viewer::Seat(v)) => s == v,
            (Audience::Only(_), Viewer::Spectator) => false,
            (Audience::AllBut(s), Viewer::Seat(v)) => s != v,
            (Audience::AllBut(_), Viewer::Spectator) => true,
        }
    }
}

/// Whose observation: a seat's, or a spectator's (public information only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Viewer {
    /// The player in this seat.
    Seat(usize),
    /// Somebody watching the table.
    Spectator,
}

/// Who acts next at a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Turn {
    /// This seat.
    Seat(usize),
    /// Whoever runs the table (between two hands: deal the next one).
    Host,
    /// The game is over.
    Over,
}

/// What everybody at the table knows of a seat besides the game.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SeatInfo {
    /// The name shown for the seat.
    pub name: String,
    /// A person or a computer player (its fields sit beside `name` in
    /// JSON: `{"name":"ann","kind":"human"}`).
    #[serde(flatten)]
    pub kind: SeatKind,
}

impl SeatInfo {
    /// A person's seat.
    pub fn human(name: impl Into<String>) -> SeatInfo {
        SeatInfo {
            name: name.into(),
            kind: SeatKind::Human,
        }
    }
    /// A computer player's seat, at `level`.
    pub fn computer(name: impl Into<String>, level: impl Into<String>) -> SeatInfo {
        SeatInfo {
            name: name.into(),
            kind: SeatKind::Computer {
                level: level.into(),
            },
        }
    }
}

/// A person or a computer player.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum SeatKind {
    /// A person.
    Human,
    /// A computer player.
    Computer {
        /// Its level or program, as its host names it.
        level: String,
    },
}

/// A game the table can run: what an engine implements.
///
/// `check` and `apply` must agree: an action `check` accepts is applied by
/// `apply`, and an action it refuses leaves the state unchanged.
pub trait Game: fmt::Debug + Sized + 'static {
    /// The whole truth of a game, chance included (seeded, so that the
    /// action log replays it).
    type State: Clone + fmt::Debug + Send;
    /// A move of a seat or of the host.
    type Action: Copy + PartialEq + fmt::Debug + fmt::Display + Send;
    /// Something that happened, as one audience may be told it.
    type Event: Clone + fmt::Debug + Send;
    /// Everything one viewer may know.
    type Observation: Clone + fmt::Debug + Send;
    /// Why an action is refused: a sentence for the player.
    type Illegal: std::error::Error + Clone + Send + Sync + 'static;

    /// Number of seats.
    fn seat_count(state: &Self::State) -> usize;
    /// Who acts next.
    fn turn(state: &Self::State) -> Turn;
    /// Why `action` would be refused now, if it would.
    fn check(state: &Self::State, action: Self::Action) -> Result<(), Self::Illegal>;
    /// Applies `action` (checked), pushing what it caused, each event with
    /// the audience that may see it.
    fn apply(
        state: &mut Self::State,
        action: Self::Action,
        events: &mut Vec<(Audience, Self::Event)>,
    ) -> Result<(), Self::Illegal>;
    /// Whether the player at `seat` sees `actor` (`None`: the host) make
    /// `action` in `state`, just before it is applied.
    fn watched_by(
        state: &Self::State,
        seat: usize,
        actor: Option<usize>,
        action: Self::Action,
    ) -> bool;
    /// Everything `viewer` may know of `state`, with the `events` it has
    /// not been shown yet.
    fn observe(
        state: &Self::State,
        viewer: Viewer,
        seats: &[SeatInfo],
        events: Vec<Self::Event>,
    ) -> Self::Observation;
}

/// What went wrong inside a computer player (an external program that
/// crashed, timed out or spoke nonsense).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BotError(pub String);

/// A computer player of game `G`: it decides from observations only.
pub trait Bot<G: Game>: Send {
    /// A short name for logs and score tables.
    fn name(&self) -> &str;
    /// The action to take: `observation` is the bot's seat's, taken when it
    /// is that seat's turn. A built-in bot always answers; an external one
    /// may fail.
    fn decide(&mut self, observation: &G::Observation) -> Result<G::Action, BotError>;
    /// Whether the bot wants [`Bot::watch`] calls (they cost an
    /// observation each).
    fn watches(&self) -> bool {
        false
    }
    /// Sees `actor` (`None`: the host) make `action`, just before it is
    /// applied, when its seat sees it: `before` is the seat's observation
    /// then. A bot that reads the other players' play remembers it here.
    fn watch(&mut self, before: &G::Observation, actor: Option<usize>, action: G::Action) {
        let _ = (before, actor, action);
    }
}

/// Who plays a seat.
pub enum Player<G: Game> {
    /// A person: moves arrive through [`Table::act`] (from a keyboard, or
    /// from a connection).
    Person,
    /// A computer player, asked by [`Table::step`].
    Bot(Box<dyn Bot<G>>),
}

impl<G: Game> fmt::Debug for Player<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Player::Person => f.write_str("Person"),
            Player::Bot(b) => write!(f, "Bot({})", b.name()),
        }
    }
}

/// Why the table did not move. The sentences count seats from 1, as
/// people do (seat 1 is the seat numbered 0); the fields number them from 0.
#[derive(Debug, thiserror::Error)]
pub enum TableError<G: Game> {
    /// The table has fewer seats.
    #[error("there is no seat {}: the table has {seats}", .seat + 1)]
    NoSuchSeat {
        /// The seat asked for.
        seat: usize,
        /// How many there are.
        seats: usize,
    },
    /// The seat moved out of turn.
    #[error("seat {} cannot move now: {}", .seat + 1, match .turn {
        Turn::Seat(s) => format!("it is seat {}'s turn", s + 1),
        Turn::Host => "the hand is over".to_string(),
        Turn::Over => "the game is over".to_string(),
    })]
    NotYourTurn {
        /// Who tried.
        seat: usize,
        /// Whose turn it is.
        turn: Turn,
    },
    /// A move for a seat that a bot plays, sent as a person's.
    #[error("seat {} is played by a computer", .seat + 1)]
    NotAPerson {
        /// The seat.
        seat: usize,
    },
    /// A move for the host while a seat is to act.
    #[error("the host cannot move now: it is seat {}'s turn", .seat + 1)]
    NotTheHost {
        /// The seat to act.
        seat: usize,
    },
    /// The engine refused a person's or the host's move.
    #[error("{reason}")]
    Illegal {
        /// Who tried (`None`: the host).
        seat: Option<usize>,
        /// The move.
        action: G::Action,
        /// The engine's sentence.
        reason: G::Illegal,
    },
    /// A computer player chose an illegal move: a bug in that player.
    #[error("{bot} (seat {}) chose the illegal move {action}: {reason}", .seat + 1)]
    BotIllegal {
        /// Its seat.
        seat: usize,
        /// Its name.
        bot: String,
        /// The move.
        action: G::Action,
        /// The engine's sentence.
        reason: G::Illegal,
    },
    /// A computer player failed to answer.
    #[error("{bot} (seat {}) failed: {error}", .seat + 1)]
    BotFailed {
        /// Its seat.
        seat: usize,
        /// Its name.
        bot: String,
        /// What went wrong.
        error: BotError,
    },
}

/// What [`Table::step`] did or waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step<A> {
    /// The bot in `seat` made `action`.
    Moved {
        /// The seat.
        seat: usize,
        /// Its move.
        action: A,
    },
    /// A person's turn: waiting for [`Table::act`].
    Person(usize),
    /// Between hands: waiting for [`Table::host_act`].
    Host,
    /// The game is over.
    Over,
}

/// One game at one table.
pub struct Table<G: Game> {
    state: G::State,
    infos: Vec<SeatInfo>,
    players: Vec<Player<G>>,
    log: Vec<G::Action>,
    /// Every event of the game so far, with its audience.
    events: Vec<(Audience, G::Event)>,
    /// Per seat, then the spectators' (last): how many of `events` each
    /// viewer has been shown.
    shown: Vec<usize>,
}

impl<G: Game> fmt::Debug for Table<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Table")
            .field("seats", &self.infos)
            .field("players", &self.players)
            .field("actions", &self.log.len())
            .finish_non_exhaustive()
    }
}

impl<G: Game> Table<G> {
    /// A table for the game `state`, one `(info, player)` per seat. Seats
    /// the list leaves out are people named "Seat N"; extra ones are
    /// ignored.
    pub fn new(state: G::State, seats: Vec<(SeatInfo, Player<G>)>) -> Table<G> {
        let n = G::seat_count(&state);
        let mut infos = Vec::with_capacity(n);
        let mut players = Vec::with_capacity(n);
        for (info, player) in seats.into_iter().take(n) {
            infos.push(info);
            players.push(player);
        }
        while infos.len() < n {
            infos.push(SeatInfo::human(format!("Seat {}", infos.len() + 1)));
            players.push(Player::Person);
        }
        Table {
            state,
            infos,
            players,
            log: Vec::new(),
            events: Vec::new(),
            shown: vec![0; n + 1],
        }
    }

    /// The game's full state: for the host (saving, scoring), never for
    /// showing a seat.
    pub fn state(&self) -> &G::State {
        &self.state
    }

    /// Every action applied so far, in order: with the game's setup and
    /// seed, the record that replays it.
    pub fn log(&self) -> &[G::Action] {
        &self.log
    }

    /// The table's sequence number: how many actions it has accepted.
    pub fn seq(&self) -> u64 {
        self.log.len() as u64
    }

    /// The seats as everybody sees them.
    pub fn seats(&self) -> &[SeatInfo] {
        &self.infos
    }

    /// Who plays `seat`, if it exists.
    pub fn player(&self, seat: usize) -> Option<&Player<G>> {
        self.players.get(seat)
    }

    /// Who acts next.
    pub fn turn(&self) -> Turn {
        G::turn(&self.state)
    }

    /// Seats `player` in `seat` under `info` (a bot that failed gives its
    /// seat to another, visibly: the host logs it and the name changes).
    pub fn seat(
        &mut self,
        seat: usize,
        info: SeatInfo,
        player: Player<G>,
    ) -> Result<(), TableError<G>> {
        let seats = self.players.len();
        match (self.infos.get_mut(seat), self.players.get_mut(seat)) {
            (Some(i), Some(p)) => {
                *i = info;
                *p = player;
                Ok(())
            }
            _ => Err(TableError::NoSuchSeat { seat, seats }),
        }
    }

    /// A person's move for `seat`: refused with the engine's reason when
    /// illegal, when it is not that seat's turn, or when a bot plays the
    /// seat.
    pub fn act(&mut self, seat: usize, action: G::Action) -> Result<(), TableError<G>> {
        let seats = self.players.len();
        match self.players.get(seat) {
            None => return Err(TableError::NoSuchSeat { seat, seats }),
            Some(Player::Bot(_)) => return Err(TableError::NotAPerson { seat }),
            Some(Player::Person) => {}
        }
        let turn = self.turn();
        if turn != Turn::Seat(seat) {
            return Err(TableError::NotYourTurn { seat, turn });
        }
        self.apply(Some(seat), action)
            .map_err(|reason| TableError::Illegal {
                seat: Some(seat),
                action,
                reason,
            })
    }

    /// The host's move (deal the next hand, start another game), refused
    /// while a seat is to act.
    pub fn host_act(&mut self, action: G::Action) -> Result<(), TableError<G>> {
        if let Turn::Seat(seat) = self.turn() {
            return Err(TableError::NotTheHost { seat });
        }
        self.apply(None, action)
            .map_err(|reason| TableError::Illegal {
                seat: None,
                action,
                reason,
            })
    }

    /// One move of a recorded game, made by whoever is to act (a person, a
    /// bot or the host): how a saved or undone game is played again. The
    /// bots watch it as they would have.
    pub fn replay(&mut self, action: G::Action) -> Result<(), TableError<G>> {
        let actor = match self.turn() {
            Turn::Seat(s) => Some(s),
            Turn::Host | Turn::Over => None,
        };
        self.apply(actor, action)
            .map_err(|reason| TableError::Illegal {
                seat: actor,
                action,
                reason,
            })
    }

    /// If a bot is to act, asks it and applies its move; otherwise says who
    /// the table waits for.
    pub fn step(&mut self) -> Result<Step<G::Action>, TableError<G>> {
        let seat = match self.turn() {
            Turn::Seat(s) => s,
            Turn::Host => return Ok(Step::Host),
            Turn::Over => return Ok(Step::Over),
        };
        if !matches!(self.players.get(seat), Some(Player::Bot(_))) {
            return Ok(Step::Person(seat));
        }
        // The events count as shown only once the bot has moved: a
        // stand-in seated after a failure is shown them again.
        let from = self.shown.get(seat).copied().unwrap_or(0);
        let observation = self.observe_since(Viewer::Seat(seat), from);
        let Some(Player::Bot(bot)) = self.players.get_mut(seat) else {
            return Ok(Step::Person(seat));
        };
        let action = bot
            .decide(&observation)
            .map_err(|error| TableError::BotFailed {
                seat,
                bot: bot.name().to_string(),
                error,
            })?;
        let seen = self.events.len();
        match self.apply(Some(seat), action) {
            Ok(()) => {
                if let Some(s) = self.shown.get_mut(seat) {
                    *s = seen;
                }
                Ok(Step::Moved { seat, action })
            }
            Err(reason) => Err(TableError::BotIllegal {
                seat,
                bot: self.bot_name(seat),
                action,
                reason,
            }),
        }
    }

    /// Runs bots' turns until a person or the host is to act, or the game
    /// ends: what the table now waits for.
    pub fn run_bots(&mut self) -> Result<Step<G::Action>, TableError<G>> {
        loop {
            match self.step()? {
                Step::Moved { .. } => {}
                waiting => return Ok(waiting),
            }
        }
    }

    /// What `viewer` may know now, with the events it has not been shown
    /// (which count as shown from then on). Every seat has its own count;
    /// spectators share one, so a host with several spectators keeps a
    /// count for each and asks [`Table::observe_since`].
    pub fn observe(&mut self, viewer: Viewer) -> G::Observation {
        let slot = self.slot(viewer);
        let from = self.shown.get(slot).copied().unwrap_or(0);
        let observation = self.observe_since(viewer, from);
        if let Some(s) = self.shown.get_mut(slot) {
            *s = self.events.len();
        }
        observation
    }

    /// What `viewer` may know now, with the events it may see among the
    /// table's events from number `from` on (`from` is
    /// [`Table::event_count`] when the viewer was last sent an
    /// observation: a host keeps it per connection, so that a client that
    /// reconnects is sent what it missed). Changes no count.
    pub fn observe_since(&self, viewer: Viewer, from: usize) -> G::Observation {
        let events = self
            .events
            .get(from..)
            .unwrap_or(&[])
            .iter()
            .filter(|(audience, _)| audience.includes(viewer))
            .map(|(_, e)| e.clone())
            .collect();
        G::observe(&self.state, viewer, &self.infos, events)
    }

    /// Whether `viewer` may see any of the table's events from number
    /// `from` on: whether it has news, without building its observation.
    pub fn has_news(&self, viewer: Viewer, from: usize) -> bool {
        self.events
            .get(from..)
            .unwrap_or(&[])
            .iter()
            .any(|(audience, _)| audience.includes(viewer))
    }

    /// How many events the game has caused so far.
    pub fn event_count(&self) -> usize {
        self.events.len()
    }

    fn slot(&self, viewer: Viewer) -> usize {
        match viewer {
            Viewer::Seat(s) if s < self.players.len() => s,
            _ => self.players.len(),
        }
    }

    fn bot_name(&self, seat: usize) -> String {
        match self.players.get(seat) {
            Some(Player::Bot(b)) => b.name().to_string(),
            _ => self
                .infos
                .get(seat)
                .map_or_else(String::new, |i| i.name.clone()),
        }
    }

    /// Checks `action`, shows it to the bots that watch, applies it and
    /// records it.
    fn apply(&mut self, actor: Option<usize>, action: G::Action) -> Result<(), G::Illegal> {
        let watching = self
            .players
            .iter()
            .any(|p| matches!(p, Player::Bot(b) if b.watches()));
        if watching {
            // Bots are shown legal moves only.
            G::check(&self.state, action)?;
            for seat in 0..self.players.len() {
                let wants = matches!(&self.players[seat], Player::Bot(b) if b.watches())
                    && G::watched_by(&self.state, seat, actor, action);
                if wants {
                    let before =
                        G::observe(&self.state, Viewer::Seat(seat), &self.infos, Vec::new());
                    if let Player::Bot(b) = &mut self.players[seat] {
                        b.watch(&before, actor, action);
                    }
                }
            }
        }
        G::apply(&mut self.state, action, &mut self.events)?;
        self.log.push(action);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy game: two seats add 1 to 3 to a counter in turn; whoever
    /// reaches 10 wins. Each seat also learns a secret number when it moves
    /// (an event for it alone); the host resets the counter once at 5.
    #[derive(Debug)]
    struct Count;

    #[derive(Clone, Debug)]
    struct CountState {
        total: u32,
        next: usize,
        paused: bool,
        reset_done: bool,
    }

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Add {
        N(u32),
        Reset,
    }

    impl fmt::Display for Add {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "{self:?}")
        }
    }

    #[derive(Clone, Debug, PartialEq)]
    enum CountEvent {
        Added(usize, u32),
        Secret(u32),
        Reset,
    }

    #[derive(Clone, Debug, PartialEq, thiserror::Error)]
    #[error("add 1 to 3")]
    struct Refused;

    impl Game for Count {
        type State = CountState;
        type Action = Add;
        type Event = CountEvent;
        type Observation = (Viewer, u32, Vec<CountEvent>);
        type Illegal = Refused;

        fn seat_count(_: &CountState) -> usize {
            2
        }
        fn turn(s: &CountState) -> Turn {
            if s.total >= 10 {
                Turn::Over
            } else if s.paused {
                Turn::Host
            } else {
                Turn::Seat(s.next)
            }
        }
        fn check(s: &CountState, a: Add) -> Result<(), Refused> {
            match (a, s.paused) {
                (Add::N(1..=3), false) | (Add::Reset, true) => Ok(()),
                _ => Err(Refused),
            }
        }
        fn apply(
            s: &mut CountState,
            a: Add,
            events: &mut Vec<(Audience, CountEvent)>,
        ) -> Result<(), Refused> {
            Count::check(s, a)?;
            match a {
                Add::N(n) => {
                    events.push((Audience::All, CountEvent::Added(s.next, n)));
                    events.push((Audience::Only(s.next), CountEvent::Secret(s.total * 7)));
                    s.total += n;
                    s.next = 1 - s.next;
                    if s.total >= 5 && !s.reset_done {
                        s.paused = true;
                    }
                }
                Add::Reset => {
                    events.push((Audience::All, CountEvent::Reset));
                    s.total = 0;
                    s.paused = false;
                    s.reset_done = true;
                }
            }
            Ok(())
        }
        fn watched_by(_: &CountState, _: usize, _: Option<usize>, _: Add) -> bool {
            true
        }
        fn observe(
            s: &CountState,
            viewer: Viewer,
            _: &[SeatInfo],
            events: Vec<CountEvent>,
        ) -> Self::Observation {
            (viewer, s.total, events)
        }
    }

    /// Adds `n` every time, and counts what it watched, checking that it
    /// is shown each move before it lands.
    struct Adder {
        n: u32,
        watched: std::sync::Arc<std::sync::atomic::AtomicUsize>,
        /// The total its last watched observation showed, and the move.
        last: Option<(u32, Add)>,
        /// Events its decisions were given.
        told: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    }

    fn adder(n: u32) -> Adder {
        Adder {
            n,
            watched: Default::default(),
            last: None,
            told: Default::default(),
        }
    }

    impl Bot<Count> for Adder {
        fn name(&self) -> &str {
            "adder"
        }
        fn decide(&mut self, seen: &(Viewer, u32, Vec<CountEvent>)) -> Result<Add, BotError> {
            // The last move it watched has landed by now.
            if let Some((before, Add::N(n))) = self.last {
                assert_eq!(seen.1, before + n, "shown before it landed");
            }
            self.told
                .fetch_add(seen.2.len(), std::sync::atomic::Ordering::Relaxed);
            Ok(Add::N(self.n))
        }
        fn watches(&self) -> bool {
            true
        }
        fn watch(&mut self, before: &(Viewer, u32, Vec<CountEvent>), _: Option<usize>, a: Add) {
            self.watched
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.last = Some((before.1, a));
        }
    }

    fn table(bot_adds: u32) -> Table<Count> {
        let state = CountState {
            total: 0,
            next: 0,
            paused: false,
            reset_done: false,
        };
        Table::new(
            state,
            vec![
                (SeatInfo::human("ann"), Player::Person),
                (
                    SeatInfo::computer("bot", "adder"),
                    Player::Bot(Box::new(adder(bot_adds))),
                ),
            ],
        )
    }

    #[test]
    fn a_game_runs_person_bot_and_host_turns_to_the_end() {
        let mut t = table(2);
        assert_eq!(t.step().expect("step"), Step::Person(0));
        assert!(matches!(
            t.act(1, Add::N(1)),
            Err(TableError::NotAPerson { seat: 1 })
        ));
        let mut people = Table::<Count>::new(t.state().clone(), Vec::new());
        assert!(matches!(
            people.act(1, Add::N(1)),
            Err(TableError::NotYourTurn {
                seat: 1,
                turn: Turn::Seat(0)
            })
        ));
        let refused = t.act(0, Add::N(4)).expect_err("illegal");
        assert_eq!(refused.to_string(), "add 1 to 3", "the engine's sentence");
        assert!(t.log().is_empty(), "a refused move changes nothing");
        t.act(0, Add::N(3)).expect("legal");
        assert_eq!(t.run_bots().expect("bots"), Step::Host, "3 + 2 = 5 pauses");
        t.host_act(Add::Reset).expect("reset");
        while let Step::Person(0) = t.run_bots().expect("bots") {
            t.act(0, Add::N(3)).expect("legal");
        }
        assert_eq!(t.turn(), Turn::Over);
        assert_eq!(t.step().expect("step"), Step::Over);
        assert_eq!(t.seq(), t.log().len() as u64);
    }

    #[test]
    fn each_viewer_gets_its_own_events_once() {
        let mut t = table(1);
        t.act(0, Add::N(2)).expect("legal");
        // Event 1 is ann's secret: news to her alone.
        assert!(t.has_news(Viewer::Seat(0), 1));
        assert!(!t.has_news(Viewer::Seat(1), 1));
        assert!(!t.has_news(Viewer::Spectator, 1));
        assert!(t.has_news(Viewer::Spectator, 0));
        t.step().expect("bot moves");
        let (_, total, ann) = t.observe(Viewer::Seat(0));
        assert_eq!(total, 3);
        assert_eq!(
            ann,
            vec![
                CountEvent::Added(0, 2),
                CountEvent::Secret(0),
                CountEvent::Added(1, 1)
            ],
            "ann sees her secret, not the bot's"
        );
        let (_, _, spectator) = t.observe(Viewer::Spectator);
        assert_eq!(
            spectator,
            vec![CountEvent::Added(0, 2), CountEvent::Added(1, 1)],
            "no secrets for spectators"
        );
        assert!(t.observe(Viewer::Seat(0)).2.is_empty(), "shown once");
        let (_, _, again) = t.observe_since(Viewer::Seat(1), 0);
        assert_eq!(again.len(), 3, "a reconnecting seat asks from the start");
    }

    #[test]
    fn an_illegal_bot_move_is_an_error_not_a_replacement() {
        let mut t = table(7);
        t.act(0, Add::N(1)).expect("legal");
        let err = t.step().expect_err("the bot's move is illegal");
        assert!(
            matches!(
                err,
                TableError::BotIllegal {
                    seat: 1,
                    action: Add::N(7),
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "adder (seat 2) chose the illegal move N(7): add 1 to 3"
        );
        assert_eq!(t.log(), &[Add::N(1)], "nothing else was played");
        let stand_in = adder(1);
        let told = stand_in.told.clone();
        t.seat(
            1,
            SeatInfo::computer("stand-in", "adder"),
            Player::Bot(Box::new(stand_in)),
        )
        .expect("seat 1 exists");
        assert_eq!(
            t.step().expect("the stand-in plays"),
            Step::Moved {
                seat: 1,
                action: Add::N(1)
            }
        );
        assert_eq!(t.seats()[1].name, "stand-in");
        assert_eq!(
            told.load(std::sync::atomic::Ordering::Relaxed),
            1,
            "the stand-in is told ann's move, as the failed bot was"
        );
    }

    #[test]
    fn people_move_only_their_seats_and_the_host_only_between_hands() {
        let mut t = table(2);
        assert!(matches!(
            t.host_act(Add::Reset),
            Err(TableError::NotTheHost { seat: 0 })
        ));
        t.act(0, Add::N(1)).expect("ann's move");
        assert!(matches!(
            t.act(1, Add::N(1)),
            Err(TableError::NotAPerson { seat: 1 })
        ));
        // A recorded game is played again whoever made its moves.
        t.replay(Add::N(2)).expect("the bot's recorded move");
        t.replay(Add::N(3)).expect("ann's recorded move");
        assert_eq!(t.turn(), Turn::Host, "1 + 2 + 3 pauses");
        t.replay(Add::Reset).expect("the host's recorded move");
        assert!(matches!(
            t.replay(Add::N(9)),
            Err(TableError::Illegal { .. })
        ));
        assert_eq!(t.log().len(), 4);
    }

    #[test]
    fn watching_bots_see_each_legal_move_before_it_lands() {
        let mut t = table(1);
        let bot = adder(1);
        let watched = bot.watched.clone();
        t.seat(
            1,
            SeatInfo::computer("bot", "adder"),
            Player::Bot(Box::new(bot)),
        )
        .expect("seat 1");
        t.act(0, Add::N(1)).expect("legal");
        let _ = t.act(0, Add::N(9));
        t.step().expect("bot");
        t.act(0, Add::N(1)).expect("legal");
        assert_eq!(t.log().len(), 3);
        assert_eq!(
            watched.load(std::sync::atomic::Ordering::Relaxed),
            3,
            "three legal moves watched, the refused one not"
        );
        assert!(matches!(
            t.seat(5, SeatInfo::human("x"), Player::Person),
            Err(TableError::NoSuchSeat { seat: 5, seats: 2 })
        ));
    }

    #[test]
    fn audiences() {
        use Viewer::*;
        assert!(Audience::All.includes(Spectator));
        assert!(Audience::Only(1).includes(Seat(1)));
        assert!(!Audience::Only(1).includes(Seat(0)));
        assert!(!Audience::Only(1).includes(Spectator));
        assert!(!Audience::AllBut(1).includes(Seat(1)));
        assert!(Audience::AllBut(1).includes(Seat(0)));
        assert!(Audience::AllBut(1).includes(Spectator));
    }
}
