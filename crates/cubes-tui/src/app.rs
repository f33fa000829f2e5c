//! The game as the terminal shows it: a model ([`App`]) and a pure
//! [`App::update`] from inputs. No terminal here, so everything is testable.
//!
//! The game comes from one of two sources. Here, it is a
//! [`game_table::Table`] of [`Cubes`]: a person's move goes to
//! [`Table::act`], a computer's comes from [`Table::step`], and the engine
//! checks both (a refusal shows the engine's own sentence). At a table
//! server ([`App::remote`]), a person's move is handed to the caller
//! ([`Effect::Play`]) to send, and the server's messages come back through
//! [`App::note`]: its observations replace the one shown and their events
//! are told as the local game tells its own; its refusals are shown as the
//! local ones are. The screen is drawn from [`App::obs`], the
//! [`Observation`] of the person to act (this program's seat at a server),
//! or a spectator's while a computer plays or when the game is over: never
//! from the engine's full state.

use crate::TuiError;
use cubes_engine::{
    Action, Cubes, DiceMask, DieState, Event, Face, IllegalAction, Observation, Phase, Settings,
    SetupError, View,
};
use game_table::{Player, SeatInfo, SeatKind, Step, Table, Turn, Viewer};
use serde_json::Value;
use std::time::Instant;
use table_client::protocol::{SeatKindSummary, SeatSummary, ServerMessage, TableId};
use table_client::{Absences, Link, Note, error_concerns_move};

/// What the screen is showing.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The game.
    Play,
    /// The help page (`?`).
    Help,
    /// "Really quit?"
    ConfirmQuit,
    /// The game is over.
    Over,
}

/// Kind of the status message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Tone {
    /// News.
    Info,
    /// A refused action or a warning.
    Error,
}

/// An input, already translated from the terminal.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A character key.
    Key(char),
    /// Enter.
    Enter,
    /// Escape.
    Esc,
    /// `--plain`'s `k 1 3`: keep these dice and roll the others, whatever
    /// is picked.
    Keep(DiceMask),
    /// Time for a computer player to move.
    Tick,
}

/// How the player gives commands, so that messages name the right ones.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Controls {
    /// The full screen: single keys (`r`, `1`-`5`, `a`, `h`).
    Keys,
    /// `--plain`: typed lines (`r`, `k 1 3`, `a`, `h`).
    Lines,
}

/// What the caller must do after an update.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Nothing.
    None,
    /// The game just ended: record it.
    GameOver,
    /// Leave the program; `unfinished` if the game was not over.
    Quit {
        /// Whether the game was left before its end.
        unfinished: bool,
    },
    /// Send this move of this program's seat to the table server, then
    /// tell the app its id ([`App::sent`]).
    Play {
        /// The server's table.
        table: TableId,
        /// The move.
        action: Action,
    },
}

/// Where the game is played.
enum Source {
    /// In this program (boxed: a table is much larger than a [`Remote`]).
    Local(Box<Table<Cubes>>),
    /// At a table server.
    Remote(Remote),
}

/// A game at a table server, as far as this program knows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Remote {
    /// The server, as the player named it.
    pub server: String,
    /// The table there.
    pub table: TableId,
    /// This program's seat; `None` when watching.
    pub seat: Option<usize>,
    /// The table's sequence number of the observation shown.
    pub seq: u64,
    /// The table's seats as the server last described them (empty until
    /// it has).
    pub seats: Vec<SeatSummary>,
    /// The connection.
    pub link: Link,
    /// The move sent and not yet answered, if any.
    pending: Option<Pending>,
    /// The people who left the table, with the countdown until a computer
    /// plays for them.
    pub absences: Absences,
    /// The time the screen shows (the countdowns count down to it): the
    /// loop sets it before each drawing, tests as they need.
    pub clock: Instant,
    /// The server's `away_seconds` (how long a seat left stays empty
    /// before a computer plays it), when known.
    pub away_seconds: Option<u64>,
}

/// Where this program's last move is: keys wait until the server has
/// answered it, so a key pressed twice is not sent twice.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Pending {
    /// Handed to the caller ([`Effect::Play`]), id not known yet.
    Unsent,
    /// Sent with this id.
    Sent(u64),
    /// Accepted as this sequence number; its observation is on its way.
    Accepted(u64),
}

impl Remote {
    /// The people's seats nobody has taken yet (the game starts when there
    /// are none); empty while the seats are unknown.
    pub fn free_seats(&self) -> Vec<usize> {
        self.seats
            .iter()
            .enumerate()
            .filter(|(_, s)| s.kind == SeatKindSummary::Human && s.player.is_none())
            .map(|(k, _)| k)
            .collect()
    }

    /// The lines about the people who left, at the screen's time ("ann
    /// left: a computer plays for ann in 45 s").
    pub fn absence_lines(&self) -> Vec<String> {
        self.absences.lines(self.clock)
    }

    /// Whether the table's result moves ratings, as far as its seats tell
    /// (a rated table's seats carry their players' ratings); `None` before
    /// the seats are known.
    pub fn rated(&self) -> Option<bool> {
        (!self.seats.is_empty()).then(|| self.seats.iter().any(|s| s.rating.is_some()))
    }
}

/// A roll that scored nothing, kept on screen after the engine has moved
/// on to the next turn, so the player sees what happened.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Busted {
    /// Who rolled it.
    pub seat: usize,
    /// The five dice as they lay.
    pub dice: [Face; 5],
    /// The dice just rolled (the others were held).
    pub rolled: DiceMask,
    /// Turn points lost.
    pub lost: u32,
}

/// The whole model of the terminal game.
pub struct App {
    /// The game: here (its state, seats, computer players and action log)
    /// or at a table server.
    source: Source,
    /// What the screen shows (see the module's notes).
    pub obs: Observation,
    /// How many of the table's events the log has told.
    told: usize,
    /// Dice the person to act has picked to keep.
    pub selected: DiceMask,
    /// Status line.
    pub message: (String, Tone),
    /// Counts every change of `message` (even to the same text), so a
    /// caller that prints messages can tell a new one from an old one.
    pub message_serial: u64,
    /// Keys or typed lines: the words of hints and refusals.
    pub controls: Controls,
    /// What happened, oldest first (the last 200 lines).
    pub log: Vec<String>,
    /// Lines ever added to the log (so a reader can tell what is new even
    /// after old lines were dropped).
    pub logged: usize,
    /// What the screen shows.
    pub mode: Mode,
    /// The last roll that scored nothing, until the next roll replaces it.
    pub busted: Option<Busted>,
    /// Whether the terminal is too small to show the board (the screen
    /// says so instead): game keys and computer moves wait, since nobody
    /// can see what they do; quitting still works.
    pub too_small: bool,
    /// Why the game cannot go on: a computer player chose an illegal move
    /// or failed (a bug in that player, reported as the table reports it).
    pub stalled: Option<String>,
}

/// `10,000`.
pub fn points(p: u32) -> String {
    let s = p.to_string();
    let mut out = String::new();
    for (k, c) in s.chars().enumerate() {
        if k > 0 && (s.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The opening announcement of a game.
pub fn announcement(view: &View) -> String {
    let s = &view.settings;
    let mut m = format!("{} game to {} points.", s.name, points(s.target));
    if view.jokers {
        m.push_str(&format!(
            " This is a JOKERS game: 13-sided dice with a Joker (face value {}).",
            Face::Joker.face_value()
        ));
    }
    m
}

/// Whether the player to act in `view` may hold now, as a short line for
/// the screen and the plain status line; `None` before the dice are
/// rolled.
pub fn hold_line(view: &View) -> Option<String> {
    match view.can_hold() {
        Ok(b) => Some(format!("Hold now banks {}", points(b))),
        Err(IllegalAction::NotOnBoard { needed, .. }) => Some(format!(
            "Cannot hold yet: on board needs {}",
            points(needed)
        )),
        Err(IllegalAction::OffBoard { needed, .. }) => Some(format!(
            "Cannot hold: crossing the target needs {}",
            points(needed)
        )),
        Err(_) => None,
    }
}

/// "Waiting for 2 people to sit at table 3 (seats 2 and 3 are free)."
fn waiting_line(table: TableId, free: &[usize]) -> String {
    let seats: Vec<String> = free.iter().map(|k| (k + 1).to_string()).collect();
    let seats = match seats.split_last() {
        Some((last, rest)) if !rest.is_empty() => {
            format!("seats {} and {last} are", rest.join(", "))
        }
        _ => format!("seat {} is", seats.join("")),
    };
    let people = if free.len() == 1 {
        "1 more person".to_string()
    } else {
        format!("{} more people", free.len())
    };
    format!("Waiting for {people} to sit at table {table} ({seats} free): the game starts then.")
}

/// The status line while the table waits for the bots invited to it:
/// "Waiting for robo (bot) to take seat 2: the game starts then."
fn invited_line(invited: &[(usize, String)]) -> String {
    let bots: Vec<String> = invited
        .iter()
        .map(|(_, name)| format!("{name} (bot)"))
        .collect();
    let seats: Vec<String> = invited.iter().map(|(k, _)| (k + 1).to_string()).collect();
    let seats = match seats.as_slice() {
        [one] => format!("seat {one}"),
        many => format!("seats {}", many.join(" and ")),
    };
    format!(
        "Waiting for {} to take {seats}: the game starts then.",
        bots.join(" and ")
    )
}

/// Whether `player` is a person.
fn is_person(player: Option<&Player<Cubes>>) -> bool {
    matches!(player, Some(Player::Person))
}

impl App {
    /// A new game at a table of `seats`; the engine refuses a table it
    /// cannot seat.
    pub fn new(
        settings: Settings,
        seats: Vec<(SeatInfo, Player<Cubes>)>,
        seed: u64,
    ) -> Result<App, SetupError> {
        Ok(App::at(Cubes::table(settings, seed, seats)?))
    }

    /// The game at `table`, shown from its next move on.
    pub fn at(table: Table<Cubes>) -> App {
        let told = table.event_count();
        let obs = table.observe_since(Viewer::Spectator, told);
        let mut app = App {
            source: Source::Local(Box::new(table)),
            obs,
            told,
            selected: DiceMask::EMPTY,
            message: (String::new(), Tone::Info),
            message_serial: 0,
            controls: Controls::Keys,
            log: Vec::new(),
            logged: 2,
            mode: Mode::Play,
            busted: None,
            too_small: false,
            stalled: None,
        };
        app.refresh();
        let first = app.obs.view.current;
        app.log.push(announcement(&app.obs.view));
        app.log.push(format!("{} starts.", app.name(first)));
        app.message.0 = app.start_message();
        app
    }

    /// The game at `table` of the table server `server` (as the player
    /// named it), from the `joined` (`seat`) or `watching` (`None`)
    /// message's sequence number and observation. Its events, if any, are
    /// told as news.
    pub fn remote(
        server: impl Into<String>,
        table: TableId,
        seat: Option<usize>,
        seq: u64,
        observation: Value,
    ) -> Result<App, TuiError> {
        let mut obs: Observation =
            serde_json::from_value(observation).map_err(TuiError::Observation)?;
        let events = std::mem::take(&mut obs.events);
        let server = server.into();
        let whereabouts = match seat {
            Some(s) => format!("You sit at seat {} of table {table} at {server}.", s + 1),
            None => format!("You are watching table {table} at {server}."),
        };
        let opening = announcement(&obs.view);
        let mut app = App {
            source: Source::Remote(Remote {
                server,
                table,
                seat,
                seq,
                seats: Vec::new(),
                absences: Absences::new(),
                clock: Instant::now(),
                away_seconds: None,
                link: Link::Connected,
                pending: None,
            }),
            obs,
            told: 0,
            selected: DiceMask::EMPTY,
            message: (String::new(), Tone::Info),
            message_serial: 0,
            controls: Controls::Keys,
            log: vec![opening, whereabouts],
            logged: 2,
            mode: Mode::Play,
            busted: None,
            too_small: false,
            stalled: None,
        };
        if events.is_empty() {
            app.message.0 = app.start_message();
        } else {
            app.tell(events);
        }
        if app.obs.view.winner.is_some() {
            app.mode = Mode::Over;
        }
        Ok(app)
    }

    /// The same game played with other controls (before the first move).
    pub fn with_controls(mut self, controls: Controls) -> App {
        self.controls = controls;
        if self.actions().is_empty() {
            self.message.0 = self.start_message();
        }
        self
    }

    /// The local table, for the host: the game's full state (to record
    /// the result) and its action log. Never for drawing. `None` at a
    /// table server, which keeps its own.
    pub fn table(&self) -> Option<&Table<Cubes>> {
        match &self.source {
            Source::Local(table) => Some(table),
            Source::Remote(_) => None,
        }
    }

    /// The game at a table server, if it is there.
    pub fn remote_game(&self) -> Option<&Remote> {
        match &self.source {
            Source::Local(_) => None,
            Source::Remote(r) => Some(r),
        }
    }

    /// Every move made so far at the local table (none at a server: the
    /// server keeps them).
    pub fn actions(&self) -> &[Action] {
        match &self.source {
            Source::Local(table) => table.log(),
            Source::Remote(_) => &[],
        }
    }

    fn start_message(&self) -> String {
        let mut m = announcement(&self.obs.view);
        // A game at a server may be joined again in the middle of a turn.
        let begun = self.remote_game().is_some_and(|r| r.seq > 0);
        if self.my_turn() && self.obs.view.phase == Phase::Rolled {
            m.push_str(self.hint());
        } else if self.my_turn() {
            m.push_str(match self.controls {
                Controls::Keys => " Press r to roll the dice, ? for help.",
                Controls::Lines => " Type r to roll the dice, ? for the commands.",
            });
        } else if let Some(r) = self.remote_game() {
            match (r.seat, self.to_act()) {
                (None, _) => m.push_str(" You are watching: q leaves, ? shows the rules."),
                (Some(_), Some(s)) if begun => {
                    m.push_str(&format!(" It is {}'s turn.", self.name(s)));
                }
                (Some(_), Some(s)) => m.push_str(&format!(" {} plays first.", self.name(s))),
                (Some(_), None) => {}
            }
        }
        m
    }

    /// Whose observation the screen shows: the person to act, or a
    /// spectator (a computer's turn, the end of the game).
    fn viewer(table: &Table<Cubes>) -> Viewer {
        match table.turn() {
            Turn::Seat(s) if is_person(table.player(s)) => Viewer::Seat(s),
            _ => Viewer::Spectator,
        }
    }

    /// Takes the observation for the screen, with the events the log has
    /// not told yet (returned, oldest first).
    fn refresh(&mut self) -> Vec<Event> {
        let Source::Local(table) = &self.source else {
            return Vec::new();
        };
        let mut obs = table.observe_since(Self::viewer(table), self.told);
        self.told = table.event_count();
        let events = std::mem::take(&mut obs.events);
        self.obs = obs;
        events
    }

    /// The name of `seat`.
    pub fn name(&self, seat: usize) -> String {
        self.obs
            .seat_info
            .get(seat)
            .map_or_else(|| format!("Seat {}", seat + 1), |p| p.name.clone())
    }

    /// Whether a computer plays `seat`.
    pub fn is_computer(&self, seat: usize) -> bool {
        self.obs
            .seat_info
            .get(seat)
            .is_some_and(|p| matches!(p.kind, SeatKind::Computer { .. }))
    }

    /// Whether a bot (a program with an account at the table server)
    /// plays `seat`, as the table's seats say.
    pub fn is_bot(&self, seat: usize) -> bool {
        self.remote_game()
            .and_then(|r| r.seats.get(seat))
            .is_some_and(|s| s.bot)
    }

    /// Sets the status line.
    pub fn say(&mut self, m: impl Into<String>, tone: Tone) {
        self.message = (m.into(), tone);
        self.message_serial += 1;
    }

    /// The seat to act, if the game goes on.
    pub fn to_act(&self) -> Option<usize> {
        match self.obs.view.winner {
            None => Some(self.obs.view.current),
            Some(_) => None,
        }
    }

    /// Whether a person must act now.
    pub fn human_to_act(&self) -> bool {
        self.to_act().is_some_and(|s| !self.is_computer(s))
    }

    /// Whether a computer player of this program is to move now (and
    /// can). A table server moves its own.
    pub fn computer_to_act(&self) -> bool {
        matches!(self.source, Source::Local(_))
            && self.stalled.is_none()
            && self.to_act().is_some_and(|s| self.is_computer(s))
    }

    /// Whether the keys make the next move: a person here is to act, or
    /// this program's seat at a table server.
    pub fn my_turn(&self) -> bool {
        match &self.source {
            Source::Local(_) => self.human_to_act(),
            Source::Remote(_) => self.obs.to_act(),
        }
    }

    /// Whether leaving should be asked about first: people play here, or
    /// this program holds a seat at a server's unfinished game.
    fn asks_before_leaving(&self) -> bool {
        match &self.source {
            Source::Local(_) => (0..self.obs.seat_info.len()).any(|s| !self.is_computer(s)),
            Source::Remote(r) => {
                r.seat.is_some()
                    && self.obs.view.winner.is_none()
                    && !matches!(r.link, Link::Failed(_))
            }
        }
    }

    /// The question before leaving an unfinished game.
    pub fn quit_question(&self) -> String {
        match &self.source {
            Source::Local(_) => {
                "Really leave this game? It is not over: it will be recorded in the \
                 score file as an unfinished game, a loss at your current score.\n\n\
                 y: quit    any other key: keep playing"
                    .to_string()
            }
            Source::Remote(r) if !self.shared() => format!(
                "Leave the table? Nobody else plays at it, so the game waits for you: \
                 `cubes --connect {}` takes you back to it.\n\ny: leave    any other key: \
                 keep playing",
                r.server
            ),
            Source::Remote(r) => {
                let after = match r.away_seconds {
                    Some(secs) => format!("after {secs} s"),
                    None => "after a while".into(),
                };
                let loss = if r.rated() == Some(false) {
                    ""
                } else {
                    " (a loss in the ratings)"
                };
                format!(
                    "Leave the table? A computer plays for you {after}, and if you are not \
                     back when the game ends it counts as abandoned{loss}. \
                     `cubes --connect {}` takes you back.\n\ny: leave    any other key: \
                     keep playing",
                    r.server
                )
            }
        }
    }

    /// Whether the game is at a table server with more than one person's
    /// seat: leaving it lets a computer play for the one who left.
    pub fn shared(&self) -> bool {
        let Source::Remote(r) = &self.source else {
            return false;
        };
        let people = if r.seats.is_empty() {
            // Before the seats are told: the observation's, where an
            // absent person's seat shows as "NAME (away)".
            self.obs
                .seat_info
                .iter()
                .filter(|i| i.kind == SeatKind::Human || i.name.ends_with(" (away)"))
                .count()
        } else {
            r.seats
                .iter()
                .filter(|s| s.kind == SeatKindSummary::Human)
                .count()
        };
        people > 1
    }

    /// Sets the time the screen shows (the countdowns count to it).
    pub fn set_clock(&mut self, now: Instant) {
        if let Source::Remote(r) = &mut self.source {
            r.clock = now;
        }
    }

    /// Sets the server's `away_seconds`, for the question before leaving.
    pub fn set_away_seconds(&mut self, seconds: Option<u64>) {
        if let Source::Remote(r) = &mut self.source {
            r.away_seconds = seconds.or(r.away_seconds);
        }
    }

    /// Whether a countdown runs (the screen redraws each second while it
    /// does).
    pub fn counting(&self) -> bool {
        self.remote_game().is_some_and(|r| r.absences.counting())
    }

    /// Whether leaving now asks first (a seat at a game in progress, or
    /// people playing here): the keys' line says "q leave" at a server.
    pub fn at_a_seat(&self) -> bool {
        self.remote_game().is_some_and(|r| r.seat.is_some())
    }

    /// Where the result of a finished game is kept, for the last screen.
    pub fn result_note(&self) -> String {
        match &self.source {
            Source::Local(_) => "The result is in the score file: see `cubes rank`.".to_string(),
            Source::Remote(r) => format!(
                "The server ranks it:\n`cubes rank{} --connect {}`",
                if self.obs.view.settings.name == Settings::blitz().name {
                    " -b"
                } else {
                    ""
                },
                r.server
            ),
        }
    }

    fn error(&mut self, m: impl Into<String>) {
        self.say(m, Tone::Error);
    }

    /// "Roll first", in the words of the controls.
    fn roll_first(&self) -> &'static str {
        match self.controls {
            Controls::Keys => "Roll first: press r to roll all five dice.",
            Controls::Lines => "Roll first: type r to roll all five dice.",
        }
    }

    /// Whether the player to act may hold now (see [`hold_line`]).
    pub fn hold_line(&self) -> Option<String> {
        hold_line(&self.obs.view)
    }

    /// Handles one input.
    pub fn update(&mut self, input: Input) -> Effect {
        if self.too_small
            && self.mode == Mode::Play
            && !matches!(input, Input::Key('q' | 'Q') | Input::Esc)
        {
            return Effect::None;
        }
        match self.mode {
            Mode::Help => {
                self.mode = if self.obs.view.winner.is_some() {
                    Mode::Over
                } else {
                    Mode::Play
                };
                Effect::None
            }
            Mode::ConfirmQuit => match input {
                Input::Key('y' | 'Y') => Effect::Quit { unfinished: true },
                _ => {
                    self.mode = Mode::Play;
                    self.say("Good: the game goes on.", Tone::Info);
                    Effect::None
                }
            },
            Mode::Over => match input {
                Input::Key('?') => {
                    self.mode = Mode::Help;
                    Effect::None
                }
                Input::Key('q' | 'Q') | Input::Enter | Input::Esc => {
                    Effect::Quit { unfinished: false }
                }
                _ => Effect::None,
            },
            Mode::Play => self.play(input),
        }
    }

    fn play(&mut self, input: Input) -> Effect {
        match input {
            Input::Key('?') => {
                self.mode = Mode::Help;
                return Effect::None;
            }
            Input::Key('q' | 'Q') | Input::Esc => {
                if self.asks_before_leaving() {
                    self.mode = Mode::ConfirmQuit;
                    return Effect::None;
                }
                return Effect::Quit { unfinished: true };
            }
            _ => {}
        }
        let Some(seat) = self.to_act() else {
            return Effect::None;
        };
        if let Some(why) = self.remote_wait() {
            self.say(why, Tone::Info);
            return Effect::None;
        }
        if self.is_computer(seat) {
            if input == Input::Tick {
                return self.computer_moves();
            }
            let m = match &self.stalled {
                Some(why) => format!("{why} The game cannot go on: q leaves it."),
                None => format!(
                    "{} is playing; wait for your turn (? help, q quit).",
                    self.name(seat)
                ),
            };
            self.say(m, Tone::Info);
            return Effect::None;
        }
        let phase = self.obs.view.phase;
        match input {
            Input::Key(c @ '1'..='5') => {
                let i = usize::from(c as u8 - b'1');
                match (phase, self.obs.view.turn.states[i]) {
                    (Phase::Rolled, DieState::Rolled) => {
                        self.selected = self.selected.toggled(i);
                        self.describe_selection();
                    }
                    (Phase::Rolled, DieState::Held) => self.error(format!(
                        "Die {c} is held from an earlier roll; pick among the dice just rolled."
                    )),
                    _ => self.error(self.roll_first()),
                }
                Effect::None
            }
            Input::Key('a' | 'A') => {
                // Every scoring die, as the key says; not the points-only
                // best keep, which leaves a lone Joker (0 points) behind
                // even when keeping it would earn a fresh roll of five.
                match self.obs.view.turn.all_scoring_keep() {
                    Some(k) if phase == Phase::Rolled => {
                        self.selected = k.mask;
                        self.describe_selection();
                    }
                    _ => self.error(self.roll_first()),
                }
                Effect::None
            }
            // The engine says why a keep is refused (nothing rolled yet,
            // dice that do not score).
            Input::Keep(mask) => self.person_moves(seat, Action::Keep(mask)),
            Input::Key('r' | 'R' | ' ') | Input::Enter => {
                if phase == Phase::Start {
                    return self.person_moves(seat, Action::Roll);
                }
                if self.selected.is_empty() {
                    self.error(match self.controls {
                        Controls::Keys => {
                            "First pick the scoring dice to keep: press 1-5 to pick dice, or a for all scoring dice; then r rolls the others. Or h to hold."
                        }
                        Controls::Lines => {
                            "First say which scoring dice to keep: k 1 3 keeps dice 1 and 3 and rolls the others; a picks all scoring dice, then r rolls the others. Or h to hold."
                        }
                    });
                    return Effect::None;
                }
                self.person_moves(seat, Action::Keep(self.selected))
            }
            Input::Key('h' | 'H' | 'b' | 'B') => self.person_moves(seat, Action::Hold),
            Input::Key(c) => {
                // Only the full screen gets here: --plain sends the app the
                // keys of commands it knows and answers unknown words itself
                // (plain::run, "Unknown command").
                self.error(format!("The key {c} does nothing here; press ? for help."));
                Effect::None
            }
            _ => Effect::None,
        }
    }

    fn describe_selection(&mut self) {
        if self.selected.is_empty() {
            self.say("Nothing picked.", Tone::Info);
            return;
        }
        let turn = &self.obs.view.turn;
        match turn.score_keep(self.selected) {
            Some(k) => {
                let left = turn.mask(DieState::Rolled).len() - self.selected.len();
                // All dice scored: the next roll is of all of them again.
                let next = if left == 0 { DiceMask::ALL.len() } else { left };
                let forgotten = if k.forgotten > 0 {
                    format!(", giving up the held dice's {}", points(k.forgotten))
                } else {
                    String::new()
                };
                let m = format!(
                    "Keep {}{forgotten}: r rolls {next} {}{}.",
                    k.combos,
                    if next == 1 { "die" } else { "dice" },
                    if left == 0 { " (all five scored!)" } else { "" }
                );
                self.say(m, Tone::Info);
            }
            // The engine's sentence: what scores in this game.
            None => match self.obs.check(Action::Keep(self.selected)) {
                Err(why) => self.error(why.to_string()),
                Ok(()) => self.say("Nothing picked.", Tone::Info),
            },
        }
    }

    /// A person's move for `seat`, checked by the table (its refusal is the
    /// engine's sentence); at a table server, handed to the caller to send
    /// (the server's engine checks it).
    fn person_moves(&mut self, seat: usize, action: Action) -> Effect {
        match &mut self.source {
            Source::Local(table) => match table.act(seat, action) {
                Err(e) => {
                    self.error(e.to_string());
                    Effect::None
                }
                Ok(()) => self.moved(),
            },
            Source::Remote(r) => {
                r.pending = Some(Pending::Unsent);
                Effect::Play {
                    table: r.table,
                    action,
                }
            }
        }
    }

    /// Why the keys cannot move at a table server now, if they cannot:
    /// watching, no connection, people missing, the last move unanswered,
    /// somebody else's turn.
    fn remote_wait(&self) -> Option<String> {
        let Source::Remote(r) = &self.source else {
            return None;
        };
        let free = r.free_seats();
        if let Link::Failed(_) = r.link {
            Some("The connection to the server is lost: q leaves.".into())
        } else if r.seat.is_none() {
            Some(format!(
                "You are watching table {}: q leaves, ? shows the rules.",
                r.table
            ))
        } else if !free.is_empty() {
            Some(waiting_line(r.table, &free))
        } else if r.pending.is_some() {
            Some("Your move is on its way to the server...".into())
        } else if !self.obs.to_act() {
            let who = self.to_act().map(|s| self.name(s)).unwrap_or_default();
            Some(format!(
                "{who} is playing; wait for your turn (? help, q quit)."
            ))
        } else {
            None
        }
    }

    /// The computer player to act moves, as the table asks it.
    fn computer_moves(&mut self) -> Effect {
        if self.stalled.is_some() {
            return Effect::None;
        }
        let Source::Local(table) = &mut self.source else {
            return Effect::None;
        };
        match table.step() {
            Ok(Step::Moved { .. }) => self.moved(),
            Ok(Step::Person(_) | Step::Host | Step::Over) => Effect::None,
            Err(e) => {
                // A bug in that player: reported, never replaced by another
                // move. The people can still leave.
                let mut why = e.to_string();
                if !why.ends_with('.') {
                    why.push('.');
                }
                self.log_lines(vec![why.clone()]);
                self.stalled = Some(why.clone());
                self.error(format!("{why} The game cannot go on: q leaves it."));
                Effect::None
            }
        }
    }

    fn log_lines(&mut self, lines: Vec<String>) {
        let before = self.log.len();
        self.log.extend(lines.into_iter().filter(|l| !l.is_empty()));
        self.logged += self.log.len() - before;
        if self.log.len() > 200 {
            self.log.drain(..self.log.len() - 200);
        }
    }

    /// After a move the local table accepted: the new observation, the
    /// log, the status line.
    fn moved(&mut self) -> Effect {
        let events = self.refresh();
        self.selected = DiceMask::EMPTY;
        let over = self.tell(events);
        if over {
            return Effect::GameOver;
        }
        Effect::None
    }

    /// Tells what happened (the observation shown is already the one
    /// after it): the dice of a bust, the log, the status line and what to
    /// do next. Returns whether this ended the game.
    fn tell(&mut self, events: Vec<Event>) -> bool {
        let mut last_roll = None;
        for e in &events {
            match e {
                Event::Rolled { dice, rolled, .. } => {
                    last_roll = Some((*dice, *rolled));
                    // A bust's dice stay on screen until somebody rolls
                    // again.
                    self.busted = None;
                }
                Event::Bust { seat, lost } => {
                    if let Some((dice, rolled)) = last_roll {
                        self.busted = Some(Busted {
                            seat: *seat,
                            dice,
                            rolled,
                            lost: *lost,
                        });
                    }
                }
                _ => {}
            }
        }
        let lines: Vec<String> = events.iter().map(|e| self.describe(e)).collect();
        let summary = lines
            .iter()
            .filter(|l| !l.is_empty())
            .cloned()
            .collect::<Vec<_>>()
            .join(" ");
        self.log_lines(lines);
        let hint = self.hint();
        self.say(format!("{summary}{hint}"), Tone::Info);
        if self.obs.view.winner.is_some() && self.mode != Mode::Over {
            self.mode = Mode::Over;
            return true;
        }
        false
    }

    /// What the keys may do next, when they make the next move.
    fn hint(&self) -> &'static str {
        let rolled = self.obs.view.phase == Phase::Rolled;
        match (self.to_act(), self.controls) {
            (Some(_), _) if !self.my_turn() => "",
            (None, _) => "",
            (Some(_), Controls::Keys) if rolled => {
                " Pick dice to keep (1-5, a), then r; or h to hold."
            }
            (Some(_), Controls::Lines) if rolled => {
                " Keep dice and roll the others (k 1 3, or a then r); or h to hold."
            }
            (Some(_), Controls::Keys) => " Press r to roll.",
            (Some(_), Controls::Lines) => " Type r to roll.",
        }
    }

    /// The id the caller's session gave the move of the last
    /// [`Effect::Play`] (its `ack` or refusal carries it).
    pub fn sent(&mut self, id: u64) {
        if let Source::Remote(r) = &mut self.source
            && r.pending == Some(Pending::Unsent)
        {
            r.pending = Some(Pending::Sent(id));
        }
    }

    /// A note from the table server's session: the connection's state, or
    /// a message. Messages about other tables are ignored.
    pub fn note(&mut self, note: Note) -> Effect {
        self.note_at(note, Instant::now())
    }

    /// [`App::note`], the note come at `now` (a countdown it brings starts
    /// then).
    pub fn note_at(&mut self, note: Note, now: Instant) -> Effect {
        if let Source::Remote(r) = &mut self.source {
            r.clock = now;
        }
        let Source::Remote(r) = &mut self.source else {
            return Effect::None;
        };
        match note {
            Note::Connection(link) => {
                let was_down = !matches!(r.link, Link::Connected);
                r.link = link.clone();
                match link {
                    Link::Connected if was_down => self.say("Connected again.", Tone::Info),
                    Link::Connected | Link::Reconnecting { .. } => {}
                    Link::Warning(w) => {
                        self.log_lines(vec![w.clone()]);
                        self.error(w);
                    }
                    Link::Failed(why) => {
                        let m = format!("The connection to the server is lost: {why} q leaves.");
                        self.log_lines(vec![m.clone()]);
                        self.error(m);
                    }
                }
                Effect::None
            }
            Note::Message(m) => self.message_from_server(m),
        }
    }

    /// A message from the table server.
    fn message_from_server(&mut self, m: ServerMessage) -> Effect {
        let Source::Remote(r) = &mut self.source else {
            return Effect::None;
        };
        let here = r.table;
        match m {
            ServerMessage::Joined {
                table,
                seat,
                seq,
                observation,
            } if table == here => {
                r.seat = Some(seat);
                self.observed(seq, observation, None)
            }
            ServerMessage::Watching {
                table,
                seq,
                observation,
            } if table == here => self.observed(seq, observation, None),
            ServerMessage::Update {
                table,
                seq,
                observation,
                seats,
            } if table == here => self.observed(seq, observation, Some(seats)),
            // The list tells the seats until the first update does: after
            // that, updates come in the table's order and a list answer
            // may be older.
            ServerMessage::Tables { tables } if r.seats.is_empty() => {
                if let Some(t) = tables.into_iter().find(|t| t.id == here) {
                    self.seated(t.seats);
                }
                Effect::None
            }
            ServerMessage::Declined {
                table, bot, reason, ..
            } if table == here => {
                let line = table_client::seats::declined_text(&bot, &reason);
                self.log_lines(vec![line.clone()]);
                self.say(line, Tone::Info);
                Effect::None
            }
            ServerMessage::Ack { table, id, seq } if table == here => {
                if r.pending == Some(Pending::Sent(id)) {
                    r.pending = (r.seq < seq).then_some(Pending::Accepted(seq));
                }
                Effect::None
            }
            ServerMessage::Error(e) if e.table.is_none_or(|t| t == here) => {
                // A refusal without an id (a message dropped over the rate
                // limit) may be the move's: the keys are freed rather than
                // stuck, by the rule every client follows.
                let mine = match r.pending {
                    Some(Pending::Sent(id)) => error_concerns_move(&e, here, id),
                    _ => false,
                };
                if mine {
                    r.pending = None;
                }
                self.error(e.message);
                Effect::None
            }
            _ => Effect::None,
        }
    }

    /// A new observation from the server (and the seats, with an
    /// `update`): it replaces the one shown and its events are told.
    fn observed(
        &mut self,
        seq: u64,
        observation: Value,
        seats: Option<Vec<SeatSummary>>,
    ) -> Effect {
        let mut obs: Observation = match serde_json::from_value(observation) {
            Ok(obs) => obs,
            Err(e) => {
                let m = format!("The server sent a game this program cannot read: {e}.");
                self.log_lines(vec![m.clone()]);
                self.error(m);
                return Effect::None;
            }
        };
        let events = std::mem::take(&mut obs.events);
        if let Source::Remote(r) = &mut self.source {
            r.seq = seq;
            if let Some(Pending::Accepted(s)) = r.pending
                && seq >= s
            {
                r.pending = None;
            }
        }
        self.obs = obs;
        if let Some(seats) = seats {
            self.seated(seats);
        }
        if events.is_empty() {
            return Effect::None;
        }
        self.selected = DiceMask::EMPTY;
        if self.tell(events) {
            return Effect::GameOver;
        }
        Effect::None
    }

    /// The table's seats as the server describes them now: who sat down,
    /// left, went away or came back is told.
    fn seated(&mut self, seats: Vec<SeatSummary>) {
        let Source::Remote(r) = &mut self.source else {
            return;
        };
        r.absences.update(&seats, r.seat, r.clock);
        let before = std::mem::replace(&mut r.seats, seats);
        let (table, now, begins) = (r.table, r.seats.clone(), r.seq == 0);
        let free = r.free_seats();
        let invited = table_client::seats::invited(&now);
        let mut news = Vec::new();
        for (k, s) in now.iter().enumerate() {
            let was = before.get(k);
            let Some(who) = &s.player else { continue };
            let who = if s.bot {
                format!("{who} (bot)")
            } else {
                who.clone()
            };
            match was {
                // The first description: nothing changed that we saw.
                _ if before.is_empty() => {}
                // A person sat down, or the invited bot came.
                Some(w) if w.player.is_none() || (w.invited && !s.invited) => {
                    news.push(format!("{who} sits down at seat {}.", k + 1));
                }
                Some(w) if !w.away && s.away => news.push(format!(
                    "{who} is away: a computer plays seat {} for now.",
                    k + 1
                )),
                Some(w) if w.away && !s.away => news.push(format!("{who} is back.")),
                _ => {}
            }
        }
        // The last free seat just taken, or all taken at the first look
        // before any move.
        let was_free = before
            .iter()
            .any(|s| s.kind == SeatKindSummary::Human && (s.player.is_none() || s.invited))
            || (before.is_empty() && begins);
        if !free.is_empty() {
            news.push(waiting_line(table, &free));
        } else if !invited.is_empty() {
            news.push(invited_line(&invited));
        } else if was_free {
            let first = self.to_act().map(|s| self.name(s)).unwrap_or_default();
            news.push(format!(
                "Everybody is here: the game begins, {first} first."
            ));
        }
        if news.is_empty() {
            return;
        }
        let mut m = news.join(" ");
        if free.is_empty() && self.my_turn() {
            m.push_str(" Press r to roll.");
        }
        // The waiting line is for the status line only; the rest is news.
        let logged: Vec<String> = news
            .iter()
            .filter(|l| !l.starts_with("Waiting for"))
            .cloned()
            .collect();
        self.log_lines(logged);
        self.say(m, Tone::Info);
    }

    /// One event as a sentence.
    pub fn describe(&self, e: &Event) -> String {
        let name = |s: usize| self.name(s);
        let view = &self.obs.view;
        let score = |s: usize| view.players.get(s).map_or(0, |p| p.score);
        match e {
            Event::Rolled { seat, dice, rolled } => {
                let faces: Vec<String> = rolled
                    .positions()
                    .map(|i| dice[i].symbol().to_string())
                    .collect();
                format!("{} rolls {}.", name(*seat), faces.join(" "))
            }
            Event::Kept {
                seat,
                combos,
                forgotten,
                turn_points,
                ..
            } => {
                let f = if *forgotten > 0 {
                    format!(" (held dice's {} given up)", points(*forgotten))
                } else {
                    String::new()
                };
                format!(
                    "{} keeps {combos}{f}: turn {}.",
                    name(*seat),
                    points(*turn_points)
                )
            }
            Event::AllFiveScored { seat } => format!(
                "All five dice scored: {} rolls all five again.",
                name(*seat)
            ),
            Event::Bust { seat, lost } => {
                if *lost > 0 {
                    format!(
                        "Nothing scores: {} loses {} points.",
                        name(*seat),
                        points(*lost)
                    )
                } else {
                    format!("Nothing scores: {}'s turn is over.", name(*seat))
                }
            }
            Event::Banked {
                seat,
                points: p,
                score,
                got_on_board,
                ..
            } => format!(
                "{} holds and banks {}: score {}{}.",
                name(*seat),
                points(*p),
                points(*score),
                if *got_on_board { ", on board" } else { "" }
            ),
            Event::Overtime { leader, lead: 0 } => {
                // A tie at the top: nobody leads, so name who is level.
                let top = score(*leader);
                let tied: Vec<String> = view
                    .players
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.score == top)
                    .map(|(s, _)| name(s))
                    .collect();
                let who = match tied.split_last() {
                    Some((last, rest)) if !rest.is_empty() => {
                        format!("{} and {last}", rest.join(", "))
                    }
                    _ => name(*leader),
                };
                format!(
                    "Overtime! {who} are tied at {}; the winner must lead by {}.",
                    points(top),
                    points(view.settings.overtime_lead)
                )
            }
            Event::Overtime { leader, lead } => format!(
                "Overtime! {} leads by {}; the winner must lead by {}.",
                name(*leader),
                points(*lead),
                points(view.settings.overtime_lead)
            ),
            Event::TurnStarted { seat } => format!("{}'s turn.", name(*seat)),
            Event::GameOver { winner } => format!(
                "{} wins with {} points!",
                name(*winner),
                points(score(*winner))
            ),
        }
    }
}

/// The tables the tests of app, plain and ui play at, written out once.
#[cfg(test)]
pub mod fixtures {
    use super::App;
    use cubes_ai::Personality;
    use cubes_engine::{Cubes, Settings};
    use game_table::{Player, SeatInfo};

    /// A person's seat.
    pub fn person(name: &str) -> (SeatInfo, Player<Cubes>) {
        (SeatInfo::human(name), Player::Person)
    }

    /// A personality's seat, under its own name.
    pub fn computer(p: Personality) -> (SeatInfo, Player<Cubes>) {
        (SeatInfo::computer(p.name, p.name), Player::Bot(Box::new(p)))
    }

    /// ann, a person, against Steady Sam, on a seed that draws ann to
    /// start (as 11, 22477 and 17343 do).
    pub fn ann_vs_sam(settings: Settings, seed: u64) -> App {
        let seats = vec![person("ann"), computer(Personality::steady())];
        let app = App::new(settings, seats, seed).expect("app");
        assert_eq!(app.obs.view.current, 0, "seed {seed} draws Sam to start");
        app
    }

    /// ann alone: a person always to act.
    pub fn ann_alone(settings: Settings, seed: u64) -> App {
        App::new(settings, vec![person("ann")], seed).expect("app")
    }

    /// Bold Bella against Steady Sam: computers only, so ticks play the
    /// whole game.
    pub fn bella_vs_sam(settings: Settings, seed: u64) -> App {
        let seats = vec![
            computer(Personality::bold()),
            computer(Personality::steady()),
        ];
        App::new(settings, seats, seed).expect("app")
    }

    /// A table server's side of a game, played by hand: the table, and the
    /// messages it sends to one seat (or a spectator).
    pub struct Server {
        /// The game.
        pub table: game_table::Table<Cubes>,
        /// The viewer the messages are for.
        pub viewer: game_table::Viewer,
        /// The events that viewer has been told.
        told: usize,
        /// The table's sequence number.
        pub seq: u64,
    }

    /// The server's table number in these tests.
    pub const TABLE: u64 = 7;

    impl Server {
        /// ann, bob and cid, people all, at a Blitz table; the messages go
        /// to `viewer`.
        pub fn three(viewer: game_table::Viewer, seed: u64) -> Server {
            let seats = vec![person("ann"), person("bob"), person("cid")];
            let table = Cubes::table(Settings::blitz(), seed, seats).expect("table");
            Server {
                told: table.event_count(),
                table,
                viewer,
                seq: 0,
            }
        }

        /// The observation JSON with the events since the last one.
        pub fn observation(&mut self) -> serde_json::Value {
            let obs = self.table.observe_since(self.viewer, self.told);
            self.told = self.table.event_count();
            serde_json::to_value(obs).expect("json")
        }

        /// The app of `viewer` after its `joined` (or `watching`).
        pub fn app(&mut self) -> App {
            let seat = match self.viewer {
                game_table::Viewer::Seat(s) => Some(s),
                game_table::Viewer::Spectator => None,
            };
            let obs = self.observation();
            App::remote("example.org:8780", TABLE, seat, self.seq, obs).expect("remote app")
        }

        /// The app of `viewer` joining again (without `since`: no events).
        pub fn rejoined(&mut self) -> App {
            self.told = self.table.event_count();
            self.app()
        }

        /// The legal moves of the seat to act.
        pub fn legal(&self) -> Vec<cubes_engine::Action> {
            let seat = self.table.state().current();
            self.table
                .observe_since(game_table::Viewer::Seat(seat), self.table.event_count())
                .legal
        }

        /// Plays `action` for whoever is to act; the `update` that follows.
        pub fn play(&mut self, action: cubes_engine::Action) -> table_client::Note {
            let seat = self.table.state().current();
            self.table.act(seat, action).expect("legal");
            self.seq += 1;
            self.update(seats(&["ann", "bob", "cid"]))
        }

        /// An `update` with the observation now and these seats.
        pub fn update(
            &mut self,
            seats: Vec<table_client::protocol::SeatSummary>,
        ) -> table_client::Note {
            table_client::Note::Message(table_client::protocol::ServerMessage::Update {
                table: TABLE,
                seq: self.seq,
                observation: self.observation(),
                seats,
            })
        }
    }

    /// People's seats held by these names, connected (`""`: a free seat).
    pub fn seats(names: &[&str]) -> Vec<table_client::protocol::SeatSummary> {
        names
            .iter()
            .map(|n| table_client::protocol::SeatSummary {
                kind: table_client::protocol::SeatKindSummary::Human,
                level: None,
                player: (!n.is_empty()).then(|| n.to_string()),
                connected: !n.is_empty(),
                away: false,
                rating: None,
                stand_in_in: None,
                bot: false,
                invited: false,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fixtures::{ann_vs_sam, bella_vs_sam};

    fn app() -> App {
        ann_vs_sam(Settings::standard(), 11)
    }

    #[test]
    fn points_have_separators() {
        assert_eq!(points(0), "0");
        assert_eq!(points(950), "950");
        assert_eq!(points(10_000), "10,000");
        assert_eq!(points(1_234_567), "1,234,567");
    }

    #[test]
    fn a_human_turn_by_keys() {
        let mut a = app();
        assert_eq!(a.update(Input::Key('h')), Effect::None);
        assert_eq!(a.message.1, Tone::Error);
        assert!(
            a.message.0.starts_with("Roll the dice first"),
            "{}",
            a.message.0
        );
        a.update(Input::Key('r'));
        assert_eq!(a.actions(), [Action::Roll]);
        if a.obs.view.phase == Phase::Rolled {
            a.update(Input::Enter);
            assert!(a.message.0.starts_with("First pick"), "{}", a.message.0);
            a.update(Input::Key('a'));
            assert!(!a.selected.is_empty());
            assert!(a.message.0.starts_with("Keep "), "{}", a.message.0);
            a.update(Input::Key('r'));
            assert_eq!(a.actions().len(), 2);
        }
        // The seed and the action log replay to the same game.
        let s = a.table().expect("a local game").state();
        let record = cubes_engine::GameRecord {
            actions: a.actions().to_vec(),
            ..cubes_engine::GameRecord::new(s.settings().clone(), 2, s.seed())
        };
        assert!(record.replay().expect("replays") == *s);
    }

    #[test]
    fn a_picks_every_scoring_die_even_a_lone_joker() {
        // The audit's roll, 3 5 4 2 J (seed 17343 with Jokers dice). `a`
        // used to pick the small straight only and roll one die; all five
        // dice score, so keeping them all rolls five fresh dice.
        let settings = Settings::standard().with_jokers(cubes_engine::JokerRule::Always);
        let mut a = ann_vs_sam(settings, 17343);
        a.update(Input::Key('r'));
        let faces: String = a.obs.view.turn.dice.iter().map(|d| d.symbol()).collect();
        assert_eq!(faces, "3542J");
        a.update(Input::Key('a'));
        assert_eq!(a.selected, DiceMask::ALL);
        assert!(a.message.0.contains("rolls 5 dice"), "{}", a.message.0);
        a.update(Input::Key('r'));
        assert_eq!(a.obs.view.turn.points, 400);
        assert_eq!(a.obs.view.turn.mask(DieState::Held), DiceMask::EMPTY);
        assert!(
            a.log.iter().any(|l| l.starts_with("All five dice scored")),
            "{:?}",
            a.log
        );
    }

    #[test]
    fn overtime_on_a_tie_says_tied() {
        let a = app();
        // The same event the engine sends when a bank draws level (the
        // engine's own tests cover when); both players are at 0 here.
        let m = a.describe(&Event::Overtime { leader: 0, lead: 0 });
        assert_eq!(
            m,
            "Overtime! ann and Steady Sam are tied at 0; the winner must lead by 250."
        );
        let m = a.describe(&Event::Overtime {
            leader: 1,
            lead: 100,
        });
        assert!(m.starts_with("Overtime! Steady Sam leads by 100;"), "{m}");
    }

    #[test]
    fn quitting_asks_first() {
        let mut a = app();
        assert_eq!(a.update(Input::Key('q')), Effect::None);
        assert_eq!(a.mode, Mode::ConfirmQuit);
        assert_eq!(a.update(Input::Key('n')), Effect::None);
        assert_eq!(a.mode, Mode::Play);
        a.update(Input::Key('q'));
        assert_eq!(a.update(Input::Key('y')), Effect::Quit { unfinished: true });
    }

    #[test]
    fn a_too_small_terminal_ignores_game_keys_but_quits() {
        // The audit pressed r on the "terminal too small" screen and rolled
        // blind.
        let mut a = app();
        a.too_small = true;
        for k in ['r', 'a', '1', 'h', '?'] {
            assert_eq!(a.update(Input::Key(k)), Effect::None);
        }
        a.update(Input::Enter);
        a.update(Input::Tick);
        assert!(a.actions().is_empty());
        assert_eq!(a.mode, Mode::Play);
        assert_eq!(a.message_serial, 0, "{}", a.message.0);
        a.update(Input::Key('q'));
        assert_eq!(a.mode, Mode::ConfirmQuit);
        assert_eq!(a.update(Input::Key('y')), Effect::Quit { unfinished: true });
        // Big enough again: keys work.
        let mut a = app();
        a.too_small = true;
        a.update(Input::Key('r'));
        a.too_small = false;
        a.update(Input::Key('r'));
        assert_eq!(a.actions(), [Action::Roll]);
    }

    #[test]
    fn help_opens_and_closes() {
        let mut a = app();
        a.update(Input::Key('?'));
        assert_eq!(a.mode, Mode::Help);
        a.update(Input::Key('x'));
        assert_eq!(a.mode, Mode::Play);
    }

    /// Rolls, then keeps die 1 whatever it shows: a broken computer
    /// player.
    struct KeepsDieOne;

    impl game_table::Bot<Cubes> for KeepsDieOne {
        fn name(&self) -> &str {
            "Keeps One"
        }
        fn decide(&mut self, o: &Observation) -> Result<Action, game_table::BotError> {
            Ok(match o.view.phase {
                Phase::Rolled => Action::Keep(DiceMask::of(&[0])),
                _ => Action::Roll,
            })
        }
    }

    #[test]
    fn a_computer_players_illegal_move_is_reported_and_stops_the_game() {
        let seats = vec![
            fixtures::computer(cubes_ai::Personality::steady()),
            (
                SeatInfo::computer("Keeps One", "broken"),
                Player::Bot(Box::new(KeepsDieOne)),
            ),
        ];
        let mut a = App::new(Settings::standard(), seats, 3).expect("app");
        for _ in 0..10_000 {
            if a.stalled.is_some() {
                break;
            }
            a.update(Input::Tick);
        }
        let why = a.stalled.clone().expect("die 1 does not always score");
        assert!(
            why.starts_with("Keeps One (seat 2) chose the illegal move keep x...."),
            "{why}"
        );
        assert!(why.contains("is not a scoring keep"), "{why}");
        assert_eq!(a.message.1, Tone::Error);
        assert!(
            a.message.0.contains("The game cannot go on"),
            "{}",
            a.message.0
        );
        assert_eq!(a.log.last(), Some(&why));
        assert!(!a.computer_to_act());
        let moves = a.actions().len();
        a.update(Input::Tick);
        assert_eq!(a.actions().len(), moves, "no move is played in its place");
        assert_eq!(a.update(Input::Key('q')), Effect::Quit { unfinished: true });
    }

    #[test]
    fn the_screen_shows_the_person_to_act_or_a_spectator() {
        let mut a = app();
        let mut seen = [false; 2];
        for _ in 0..2_000 {
            let Some(seat) = a.to_act() else { break };
            if a.is_computer(seat) {
                assert_eq!(a.obs.viewer, Viewer::Spectator);
                assert!(a.obs.legal.is_empty());
                a.update(Input::Tick);
                seen[1] = true;
            } else {
                assert_eq!(a.obs.viewer, Viewer::Seat(seat));
                assert!(a.obs.to_act() && !a.obs.legal.is_empty());
                let k = a.obs.legal[0];
                a.update(match k {
                    Action::Roll => Input::Key('r'),
                    Action::Hold => Input::Key('h'),
                    Action::Keep(m) => Input::Keep(m),
                });
                seen[0] = true;
            }
        }
        assert_eq!(seen, [true, true]);
        let b = bella_vs_sam(Settings::blitz(), 5);
        assert_eq!(b.obs.viewer, Viewer::Spectator, "only computers play");
    }

    #[test]
    fn computers_move_on_ticks_and_games_end() {
        let mut a = bella_vs_sam(Settings::blitz(), 5);
        let mut over = false;
        for _ in 0..100_000 {
            if a.update(Input::Tick) == Effect::GameOver {
                over = true;
                break;
            }
        }
        assert!(over);
        assert_eq!(a.mode, Mode::Over);
        assert!(
            a.log.last().is_some_and(|l| l.contains("wins with")),
            "{:?}",
            a.log.last()
        );
        assert_eq!(
            a.update(Input::Key('q')),
            Effect::Quit { unfinished: false }
        );
    }
}

#[cfg(test)]
mod remote_tests {
    use super::*;
    use fixtures::{Server, TABLE, seats};
    use table_client::protocol::{ErrorBody, ErrorCode, TableStatus, TableSummary};

    /// The seat that starts on this seed, and a server speaking to it.
    fn first_player(seed: u64) -> (usize, Server) {
        let probe = Server::three(Viewer::Spectator, seed);
        let first = probe.table.state().current();
        (first, Server::three(Viewer::Seat(first), seed))
    }

    fn refusal(id: Option<u64>, message: &str) -> Note {
        Note::Message(ServerMessage::Error(ErrorBody {
            code: ErrorCode::Illegal,
            message: message.into(),
            id,
            table: Some(TABLE),
        }))
    }

    #[test]
    fn a_move_goes_to_the_server_once_and_its_update_is_told() {
        let (me, mut server) = first_player(4);
        let mut a = server.app();
        assert!(a.my_turn());
        assert!(a.message.0.contains("Press r to roll"), "{}", a.message.0);
        assert!(!a.computer_to_act(), "the server moves its computers");
        assert_eq!(
            a.update(Input::Key('r')),
            Effect::Play {
                table: TABLE,
                action: Action::Roll
            }
        );
        // Until the server answers, the keys wait: no second roll.
        assert_eq!(a.update(Input::Key('r')), Effect::None);
        assert!(a.message.0.contains("on its way"), "{}", a.message.0);
        a.sent(41);
        let ack = Note::Message(ServerMessage::Ack {
            table: TABLE,
            id: 41,
            seq: 1,
        });
        assert_eq!(a.note(ack), Effect::None);
        assert_eq!(a.update(Input::Key('r')), Effect::None, "still waiting");
        let update = server.play(Action::Roll);
        assert_eq!(a.note(update), Effect::None);
        let name = a.name(me);
        assert!(
            a.log
                .iter()
                .any(|l| l.starts_with(&format!("{name} rolls"))),
            "{:?}",
            a.log
        );
        assert_eq!(a.remote_game().map(|r| r.seq), Some(1));
        // The same words as a local game: the events through describe.
        assert!(
            a.message.0.starts_with(&format!("{name} rolls")),
            "{}",
            a.message.0
        );
        assert!(a.actions().is_empty() && a.table().is_none());
    }

    #[test]
    fn a_refusal_shows_the_servers_sentence_and_frees_the_keys() {
        let (_, mut server) = first_player(4);
        let mut a = server.app();
        a.update(Input::Key('h'));
        a.sent(9);
        // Another move's refusal, or another table's, is not this one's.
        a.note(refusal(Some(8), "not that one"));
        assert_eq!(a.update(Input::Key('h')), Effect::None);
        a.note(refusal(Some(9), "Roll the dice first."));
        assert_eq!(a.message, ("Roll the dice first.".to_string(), Tone::Error));
        assert_eq!(
            a.update(Input::Key('r')),
            Effect::Play {
                table: TABLE,
                action: Action::Roll
            }
        );
    }

    #[test]
    fn an_error_without_id_frees_the_keys_but_another_tables_does_not() {
        let (_, mut server) = first_player(4);
        let mut a = server.app();
        a.update(Input::Key('r'));
        a.sent(9);
        let error = |table, code| {
            Note::Message(ServerMessage::Error(ErrorBody {
                code,
                message: "dropped".into(),
                id: None,
                table,
            }))
        };
        a.note(error(Some(TABLE + 1), ErrorCode::Unavailable));
        assert_eq!(a.update(Input::Key('r')), Effect::None, "still waiting");
        a.note(error(None, ErrorCode::RateLimited));
        assert_eq!(a.message, ("dropped".to_string(), Tone::Error));
        assert_eq!(
            a.update(Input::Key('r')),
            Effect::Play {
                table: TABLE,
                action: Action::Roll
            }
        );
    }

    #[test]
    fn other_peoples_moves_are_told_and_their_turn_keeps_the_keys_still() {
        let (first, _) = first_player(4);
        let me = (first + 1) % 3;
        let mut server = Server::three(Viewer::Seat(me), 4);
        let mut a = server.app();
        assert!(!a.my_turn());
        let other = a.name(first);
        assert_eq!(a.update(Input::Key('r')), Effect::None);
        assert!(
            a.message.0.starts_with(&format!("{other} is playing")),
            "{}",
            a.message.0
        );
        a.note(server.play(Action::Roll));
        assert!(
            a.log
                .iter()
                .any(|l| l.starts_with(&format!("{other} rolls"))),
            "{:?}",
            a.log
        );
        // They hold or bust; either way the turn passes on, maybe to me.
        let mut guard = 0;
        while !a.my_turn() && guard < 200 {
            guard += 1;
            let action = *server.legal().last().expect("a move");
            a.note(server.play(action));
        }
        assert!(a.my_turn(), "the turn comes round");
        assert!(a.message.0.ends_with("Press r to roll."), "{}", a.message.0);
    }

    #[test]
    fn the_connection_state_is_shown_and_a_lost_one_lets_go() {
        let (_, mut server) = first_player(4);
        let mut a = server.app();
        a.note(Note::Connection(Link::Reconnecting {
            attempt: 2,
            why: "the connection broke".into(),
        }));
        assert!(matches!(
            a.remote_game().map(|r| &r.link),
            Some(Link::Reconnecting { attempt: 2, .. })
        ));
        a.note(Note::Connection(Link::Connected));
        assert_eq!(a.message.0, "Connected again.");
        a.note(Note::Connection(Link::Failed("the name is taken".into())));
        assert!(a.message.0.contains("the name is taken"), "{}", a.message.0);
        assert_eq!(a.update(Input::Key('r')), Effect::None);
        assert_eq!(
            a.update(Input::Key('q')),
            Effect::Quit { unfinished: true },
            "nothing to ask about: the game cannot go on from here"
        );
    }

    #[test]
    fn leaving_a_seat_asks_first_and_says_the_game_goes_on() {
        let (_, mut server) = first_player(4);
        let mut a = server.app();
        a.update(Input::Key('q'));
        assert_eq!(a.mode, Mode::ConfirmQuit);
        assert!(
            a.quit_question()
                .contains("cubes --connect example.org:8780")
        );
        assert_eq!(a.update(Input::Key('y')), Effect::Quit { unfinished: true });
    }

    #[test]
    fn leaving_a_shared_table_says_a_computer_plays_and_the_game_counts_as_abandoned() {
        let (_, mut server) = first_player(4);
        let mut a = server.app();
        if let Source::Remote(r) = &mut a.source {
            r.away_seconds = Some(45);
        }
        for leave in [Input::Key('q'), Input::Key('Q'), Input::Esc] {
            assert_eq!(a.update(leave), Effect::None);
            assert_eq!(a.mode, Mode::ConfirmQuit);
            let q = a.quit_question();
            assert!(
                q.starts_with(
                    "Leave the table? A computer plays for you after 45 s, and if you are not \
                     back when the game ends it counts as abandoned (a loss in the ratings)."
                ),
                "{q}"
            );
            assert_eq!(a.update(Input::Key('n')), Effect::None);
            assert_eq!(a.mode, Mode::Play);
        }
        // A casual table's seats carry no ratings: no loss to speak of.
        a.note(server.update(seats(&["ann", "bob", "cid"])));
        assert!(
            a.quit_question()
                .contains("it counts as abandoned. `cubes --connect"),
            "{}",
            a.quit_question()
        );
    }

    #[test]
    fn alone_at_a_server_leaving_says_the_game_waits() {
        let (_, mut server) = first_player(4);
        let mut a = server.app();
        let mut s = seats(&["ann", "bob", "cid"]);
        for (k, seat) in s.iter_mut().enumerate() {
            if Some(k) != a.remote_game().and_then(|r| r.seat) {
                seat.kind = SeatKindSummary::Computer;
            }
        }
        a.note(server.update(s));
        assert!(!a.shared());
        a.update(Input::Key('q'));
        assert!(
            a.quit_question()
                .starts_with("Leave the table? Nobody else plays at it, so the game waits"),
            "{}",
            a.quit_question()
        );
    }

    #[test]
    fn the_others_see_who_left_and_the_countdown_until_a_computer_plays() {
        let (me, mut server) = first_player(4);
        let mut a = server.app();
        let other = (me + 1) % 3;
        let t0 = Instant::now();
        let gone = |stand_in_in: Option<u64>, away: bool| {
            let mut s = seats(&["ann", "bob", "cid"]);
            s[other].connected = false;
            s[other].away = away;
            s[other].stand_in_in = stand_in_in;
            s
        };
        let name = ["ann", "bob", "cid"][other];
        a.note_at(server.update(gone(Some(45), false)), t0);
        let lines = |a: &App, after: u64| {
            let mut r = a.remote_game().expect("remote").clone();
            r.clock = t0 + std::time::Duration::from_secs(after);
            r.absence_lines()
        };
        assert_eq!(
            lines(&a, 0),
            [format!("{name} left: a computer plays for {name} in 45 s")]
        );
        assert_eq!(
            lines(&a, 5),
            [format!("{name} left: a computer plays for {name} in 40 s")]
        );
        assert!(a.remote_game().is_some_and(|r| r.absences.counting()));
        // The next update starts the count afresh; then the stand-in plays.
        a.note_at(server.update(gone(Some(10), false)), t0);
        assert_eq!(
            lines(&a, 1),
            [format!("{name} left: a computer plays for {name} in 9 s")]
        );
        a.note_at(server.update(gone(None, true)), t0);
        assert_eq!(lines(&a, 1), [format!("a computer plays for {name}")]);
        a.note_at(server.update(seats(&["ann", "bob", "cid"])), t0);
        assert!(lines(&a, 1).is_empty());
    }

    #[test]
    fn a_spectator_sees_the_game_and_cannot_move() {
        let mut server = Server::three(Viewer::Spectator, 4);
        let mut a = server.app();
        assert!(a.message.0.contains("You are watching"), "{}", a.message.0);
        assert_eq!(a.update(Input::Key('r')), Effect::None);
        assert!(
            a.message.0.starts_with("You are watching table 7"),
            "{}",
            a.message.0
        );
        a.note(server.play(Action::Roll));
        assert!(a.log.iter().any(|l| l.contains(" rolls ")), "{:?}", a.log);
        assert_eq!(a.update(Input::Key('q')), Effect::Quit { unfinished: true });
    }

    #[test]
    fn the_table_waits_for_people_and_says_who_sits_down() {
        let (_, mut server) = first_player(4);
        let mut a = server.app();
        let summary = TableSummary {
            id: TABLE,
            game: table_client::protocol::GameKind::Cubes,
            ruleset: "blitz, 3 players".into(),
            setup: Value::Null,
            seats: seats(&["ann", "bob", ""]),
            status: TableStatus::Waiting,
            private: false,
            spectators: 0,
            seq: 0,
            rated: false,
            arena: None,
            bots: false,
        };
        a.note(Note::Message(ServerMessage::Tables {
            tables: vec![summary],
        }));
        assert!(
            a.message
                .0
                .starts_with("Waiting for 1 more person to sit at table 7 (seat 3 is free)"),
            "{}",
            a.message.0
        );
        assert_eq!(
            a.update(Input::Key('r')),
            Effect::None,
            "the game has not begun"
        );
        a.note(server.update(seats(&["ann", "bob", "cid"])));
        assert!(
            a.message
                .0
                .starts_with("cid sits down at seat 3. Everybody is here"),
            "{}",
            a.message.0
        );
        assert!(
            a.log.iter().any(|l| l == "cid sits down at seat 3."),
            "{:?}",
            a.log
        );
        assert!(matches!(a.update(Input::Key('r')), Effect::Play { .. }));
    }

    #[test]
    fn the_end_of_the_game_comes_from_the_server() {
        let (_, mut server) = first_player(4);
        let mut a = server.app();
        let mut over = false;
        for _ in 0..20_000 {
            // Hold as soon as it banks anything, else roll or keep.
            let legal = server.legal();
            let action = if legal.contains(&Action::Hold) {
                Action::Hold
            } else {
                *legal.first().expect("a move")
            };
            if a.note(server.play(action)) == Effect::GameOver {
                over = true;
                break;
            }
        }
        assert!(over, "the game ends");
        assert_eq!(a.mode, Mode::Over);
        assert!(
            a.log.last().is_some_and(|l| l.contains("wins with")),
            "{:?}",
            a.log
        );
        assert!(
            a.result_note()
                .contains("`cubes rank -b --connect example.org:8780`")
        );
        // News after the end does not end it twice.
        assert_eq!(
            a.note(server.update(seats(&["ann", "bob", "cid"]))),
            Effect::None
        );
        assert_eq!(a.update(Input::Enter), Effect::Quit { unfinished: false });
    }

    #[test]
    fn joining_again_in_the_middle_of_a_turn_says_what_to_do_next() {
        let (_, mut server) = first_player(4);
        server.play(Action::Roll);
        let a = server.rejoined();
        assert_eq!(a.obs.view.phase, Phase::Rolled);
        assert!(
            a.message
                .0
                .ends_with("Pick dice to keep (1-5, a), then r; or h to hold."),
            "{}",
            a.message.0
        );
    }

    #[test]
    fn an_unreadable_observation_is_refused() {
        let e = App::remote("here", 1, Some(0), 0, Value::from("nonsense"));
        assert!(matches!(e, Err(TuiError::Observation(_))));
        let (_, mut server) = first_player(4);
        let mut a = server.app();
        a.note(Note::Message(ServerMessage::Update {
            table: TABLE,
            seq: 3,
            observation: Value::Null,
            seats: Vec::new(),
        }));
        assert_eq!(a.message.1, Tone::Error);
        assert!(a.message.0.contains("cannot read"), "{}", a.message.0);
        // Another table's news is not this one's.
        let other = Note::Message(ServerMessage::Update {
            table: TABLE + 1,
            seq: 3,
            observation: Value::Null,
            seats: Vec::new(),
        });
        let before = a.message_serial;
        a.note(other);
        assert_eq!(a.message_serial, before);
    }
}
