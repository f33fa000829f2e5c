//! What the screen shows: the game as the player's seat observes it (the
//! engine's [`Observation`], never its full state), the moves shown under
//! the board, the question being asked, the messages, and the player's
//! settings.

use mille_ai::Level;
use mille_engine::{
    Action, Card, Event as GameEvent, HandScore, Kind, Observation, PhaseView, Rules, Tableau,
    rules::ConfigError, view::TeamView,
};
use mille_store::{MouseMethod, Options, SaveSettings};
use std::path::PathBuf;
use std::time::Instant;
use table_client::Absences;
use table_client::protocol::{SeatKindSummary, SeatSummary};

/// The seat the player sits in at this terminal's own table (team 0). At
/// a table server the player's seat is the observation's
/// ([`Model::me`]).
pub const HUMAN: u8 = 0;

/// Most moves kept in the log under the board.
pub const MAX_LOG: usize = 8;

/// How a game is started: the player, the computers' level, the options.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The computer players' level.
    pub level: Level,
    /// The player's name (for the score window and high scores).
    pub player: String,
    /// The file the game was restored from (offered again by S).
    pub save_path: Option<PathBuf>,
    /// Persisted options (auto-sort, mouse method).
    pub options: Options,
    /// Ask the player's name before playing (first run).
    pub ask_name: bool,
}

/// Which window the score area shows besides the score rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Window {
    /// The startup window, with the command list.
    Commands,
    /// The end-of-game window, with the five bonus rows.
    Scores,
}

/// D or U.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    /// Use (play) a card.
    Use,
    /// Discard a card.
    Discard,
}

/// What to do after a save attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterSave {
    /// Go on playing either way (the S command).
    Resume,
    /// Quit when saved; resume play if not (leaving with Q).
    QuitElseResume,
    /// Quit when saved; deal the next hand or game if not (the man page:
    /// "play will be resumed as if you had said you wanted to play another
    /// hand/game").
    QuitElseDeal,
}

/// The question or input the game is waiting for from the player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A one-letter command.
    Normal,
    /// After D or U: which card (1-6 or P), then RETURN or SPACE.
    PickCard {
        /// D or U.
        verb: Verb,
        /// The slot typed so far (0 is P).
        slot: Option<usize>,
    },
    /// A hazard with several opponents: on which side?
    Target {
        /// The hazard.
        card: Card,
    },
    /// "Really quit?"
    ConfirmQuit,
    /// A safety about to be discarded (rules that allow it): the rules say
    /// the interface asks first, since a safety thrown away is a safety
    /// never played.
    ConfirmDiscard {
        /// The safety.
        card: Card,
    },
    /// "Save the game?" on the way out.
    SaveOnExit {
        /// What a failed save leads to.
        then: AfterSave,
    },
    /// "Save in FILE?" (the file the game came from).
    SaveSame {
        /// The file.
        path: PathBuf,
        /// What follows.
        then: AfterSave,
    },
    /// "Save in file:" typing a name.
    SaveName {
        /// The name typed so far.
        buf: String,
        /// What follows.
        then: AfterSave,
    },
    /// Waiting for the save to finish.
    Saving {
        /// What follows.
        then: AfterSave,
    },
    /// "Another hand?" / "Another game?"
    Another,
    /// "Extend the trip to 1000 miles?" (the lengths of the rules)
    Extension,
    /// "Your name:" (asked once).
    Name {
        /// Typed so far.
        buf: String,
    },
    /// The help screen.
    Help,
    /// "Clear the high-score table?" is not asked in game; quitting.
    Quitting,
}

/// The whole model of the terminal game.
#[derive(Clone, Debug)]
pub struct Model {
    /// What the player's seat may know of the game (its events already
    /// taken into the log and the facts below).
    pub obs: Observation,
    /// The rules of the game, resolved by the engine from the
    /// observation's configuration.
    pub rules: Rules,
    /// The side that completed the trip this hand, as the table told.
    pub completed: Option<u8>,
    /// The winners of the game, once the table has said so.
    pub winners: Vec<u8>,
    /// After P let a coup fourré pass: pick as soon as the table says it
    /// is the player's turn to.
    pub draw_after_decline: bool,
    /// What went wrong with a computer player, for the log on standard
    /// error once the game has left the screen.
    pub incidents: Vec<String>,
    /// Computer level.
    pub level: Level,
    /// The player's name.
    pub player: String,
    /// The default name offered when asking (the login name).
    pub default_name: String,
    /// Persisted options.
    pub options: Options,
    /// Show the hand sorted (the O command).
    pub sorted: bool,
    /// Score window type (the W command).
    pub window: Window,
    /// The current question.
    pub mode: Mode,
    /// The last line: an error (with the bell) or a notice.
    pub message: Option<String>,
    /// Whether `message` is an error.
    pub message_is_error: bool,
    /// Whether `message` only says to wait for the computer: it is cleared
    /// as soon as it is the player's turn, when it no longer holds.
    pub message_until_turn: bool,
    /// What the computer players did since the player's last move.
    pub log: MoveLog,
    /// The file the game was restored from or last saved to.
    pub save_path: Option<PathBuf>,
    /// Changed since the last save.
    pub dirty: bool,
    /// Bumped on every change of the game, so a computer's turn asked for
    /// an older game is not played.
    pub generation: u64,
    /// A computer move is being thought out.
    pub thinking: bool,
    /// Mouse: the selected hand slot (0 is P).
    pub selected: Option<usize>,
    /// Mouse: where the button went down (for drag and double-click).
    pub press: Option<(u16, u16)>,
    /// Mouse: last click on a slot and its time in ms (for double-click).
    pub last_click: Option<(usize, u64)>,
    /// The screen size last drawn (for mouse hit-testing).
    pub screen: (u16, u16),
    /// The game should end.
    pub quit: bool,
    /// What to print once the game has left the screen ("Game saved in
    /// FILE."): the full screen is gone by then, with its message line.
    pub farewell: Option<String>,
    /// A local game played to its end, as it stood when the player left:
    /// offered for review once the screen is given back.
    pub finished: Option<mille_engine::GameRecord>,
    /// The table server the game is played at; `None` for a game against
    /// the computer at this terminal.
    pub server: Option<ServerTable>,
}

/// A game at a table server: where, the connection, and what the table
/// waits for. The server keeps the game: no undo, no save, no high scores
/// here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerTable {
    /// The table's number at the server.
    pub table: u64,
    /// The server, as the player named it.
    pub server: String,
    /// The connection, as the status line shows it ("connected",
    /// "reconnecting (attempt 2)...").
    pub link: String,
    /// The connection is lost for good: nothing more will come.
    pub failed: bool,
    /// People's seats nobody has taken yet: the game starts when there are
    /// none left.
    pub free: usize,
    /// The player said it is ready for the next hand.
    pub ready: bool,
    /// A move of the player is on its way and the table has not answered:
    /// another would cross it.
    pub awaiting: bool,
    /// The player leaves the table for the lobby (a spectator's Q), not
    /// the program.
    pub to_lobby: bool,
    /// The connection came back: the next observation of the table, taken
    /// on rejoining it, tells what was missed meanwhile.
    pub rejoining: bool,
    /// The table's seats as the server last described them (empty until
    /// an update has).
    pub seats: Vec<SeatSummary>,
    /// The people who left the table, with the countdown until a computer
    /// plays for them.
    pub absences: Absences,
    /// The time the screen shows (the countdowns count down to it): the
    /// loop sets it before each drawing, tests as they need.
    pub clock: Instant,
    /// The server's `away_seconds`: how long a seat left stays empty
    /// before a computer plays it, when known.
    pub away_seconds: Option<u64>,
}

impl ServerTable {
    /// Table `table` at `server`, just joined.
    pub fn new(table: u64, server: impl Into<String>) -> ServerTable {
        ServerTable {
            table,
            server: server.into(),
            link: "connected".into(),
            failed: false,
            free: 0,
            ready: false,
            awaiting: false,
            to_lobby: false,
            rejoining: false,
            seats: Vec::new(),
            absences: Absences::new(),
            clock: Instant::now(),
            away_seconds: None,
        }
    }

    /// The seats as an update describes them, received at `at`; `me` is
    /// the player's seat.
    pub fn seated(&mut self, seats: Vec<SeatSummary>, me: Option<usize>, at: Instant) {
        self.absences.update(&seats, me, at);
        self.seats = seats;
        self.clock = self.clock.max(at);
    }

    /// Whether the table's result moves ratings, as far as its seats tell
    /// (a rated table's seats carry their players' ratings); `None` before
    /// the seats are known.
    pub fn rated(&self) -> Option<bool> {
        (!self.seats.is_empty()).then(|| self.seats.iter().any(|s| s.rating.is_some()))
    }

    /// "table 3 at host:8780".
    pub fn place(&self) -> String {
        format!("table {} at {}", self.table, self.server)
    }
}

/// The login name, for the name question's default: `USER`, `LOGNAME` or
/// `USERNAME` when set (what the shell says the user is), else the account
/// the system knows the process by (containers and services often set no
/// such variable), else "Player".
pub fn login_name() -> String {
    login_name_from(|v| std::env::var(v).ok(), || whoami::username().ok())
}

/// [`login_name`] with the environment and the system's answer given, for
/// tests.
pub fn login_name_from(
    env: impl Fn(&str) -> Option<String>,
    system: impl FnOnce() -> Option<String>,
) -> String {
    let named = |s: &String| !s.trim().is_empty();
    ["USER", "LOGNAME", "USERNAME"]
        .iter()
        .find_map(|v| env(v).filter(named))
        .or_else(|| system().filter(named))
        .unwrap_or_else(|| "Player".to_string())
}

/// The log of moves under the board: what happened since the player's
/// last move. A move of the player (a pick aside) or a new deal starts it
/// afresh. It is made of the table's events, so a restored or undone game,
/// whose observation brings every event of the game again, shows it line
/// for line as play showed it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveLog {
    /// The lines, oldest first; at most [`MAX_LOG`].
    pub lines: Vec<String>,
    /// The seat whose move is the last line, if any: a computer move that
    /// follows another computer's is shown after a pause (see
    /// [`crate::app::pause_before`]).
    pub last_seat: Option<u8>,
}

impl MoveLog {
    /// Adds what `event` shows, in the words of `model` (its rules and
    /// the names of its seats).
    pub fn push(&mut self, model: &Model, event: &GameEvent) {
        let (seat, fresh) = match *event {
            GameEvent::Dealt { .. } | GameEvent::NewGame => (None, true),
            GameEvent::Played { seat, .. }
            | GameEvent::Discarded { seat, .. }
            | GameEvent::CoupFourre { seat, .. }
            | GameEvent::DeclinedCoupFourre { seat }
            | GameEvent::Extension { seat, .. } => (Some(seat), Some(seat) == model.me()),
            _ => (None, false),
        };
        if fresh {
            self.lines.clear();
            self.last_seat = None;
        }
        if let (Some(seat), Some(line)) = (seat, describe(model, event)) {
            self.last_seat = Some(seat);
            self.lines.push(line);
            if self.lines.len() > MAX_LOG {
                self.lines.remove(0);
            }
        }
    }
}

impl Model {
    /// A model for the game the player's observation `obs` shows. Its
    /// events (every event of a restored game) make the log of moves.
    /// Fails when the engine has no rules for the observation's
    /// configuration.
    pub fn new(obs: Observation, settings: Setup) -> Result<Model, ConfigError> {
        let mut m = Model {
            rules: Rules::new(obs.config)?,
            obs,
            completed: None,
            winners: Vec::new(),
            draw_after_decline: false,
            incidents: Vec::new(),
            level: settings.level,
            player: settings.player.clone(),
            default_name: settings.player,
            sorted: settings.options.auto_sort,
            window: if settings.options.bonus_window {
                Window::Scores
            } else {
                Window::Commands
            },
            options: settings.options,
            mode: Mode::Normal,
            message: None,
            message_is_error: false,
            message_until_turn: false,
            log: MoveLog::default(),
            dirty: false,
            save_path: settings.save_path,
            generation: 0,
            thinking: false,
            selected: None,
            press: None,
            last_click: None,
            screen: (80, 24),
            quit: false,
            farewell: None,
            finished: None,
            server: None,
        };
        let events = std::mem::take(&mut m.obs.events);
        m.take_events(&events);
        if settings.ask_name {
            m.mode = Mode::Name { buf: String::new() };
        } else {
            m.sync_mode();
        }
        Ok(m)
    }

    /// Takes a new observation in: its events go to the log of moves and
    /// the facts they tell (a trip completed, the winners). With `whole`,
    /// the observation brings every event of the game (an undo, a rebuilt
    /// table) and replaces what the old ones told. Returns whether a game
    /// ended among its new events: never for a whole game told again,
    /// whose ends were taken in (and recorded) when they happened.
    pub fn observe(&mut self, mut obs: Observation, whole: bool) -> bool {
        if whole {
            self.log = MoveLog::default();
            self.completed = None;
            self.winners.clear();
        }
        let events = std::mem::take(&mut obs.events);
        self.obs = obs;
        self.take_events(&events) && !whole
    }

    fn take_events(&mut self, events: &[GameEvent]) -> bool {
        let mut ended = false;
        // The log is told in the model's words (its seats' names).
        let mut log = std::mem::take(&mut self.log);
        for e in events {
            log.push(self, e);
            match e {
                GameEvent::Dealt { .. } | GameEvent::NewGame => {
                    self.completed = None;
                    self.winners.clear();
                }
                GameEvent::TripCompleted { team } => self.completed = Some(*team),
                GameEvent::GameOver { winners } => {
                    self.winners = winners.clone();
                    ended = true;
                }
                _ => {}
            }
        }
        self.log = log;
        ended
    }

    /// A model for a game at a table server, from the observation the
    /// server gave on joining (or watching) `server`'s table. The name
    /// is never asked: the server knows the player by it already.
    pub fn at_server(
        obs: Observation,
        settings: Setup,
        server: ServerTable,
    ) -> Result<Model, ConfigError> {
        let mut obs = obs;
        // The events are told once the model knows the table's names.
        let events = std::mem::take(&mut obs.events);
        let mut m = Model::new(
            obs,
            Setup {
                ask_name: false,
                ..settings
            },
        )?;
        m.server = Some(server);
        m.take_events(&events);
        Ok(m)
    }

    /// The player's seat: seat 0 at this terminal's own table, the joined
    /// seat at a table server, `None` for a spectator.
    pub fn me(&self) -> Option<u8> {
        self.obs.seat()
    }

    /// Where the commands are typed, which says which of them work.
    pub fn place(&self) -> crate::commands::Place {
        use crate::commands::Place;
        match &self.server {
            None => Place::Here,
            Some(_) if self.watching() => Place::Watching,
            Some(_) => Place::Shared,
        }
    }

    /// Whether the player only watches (a spectator at a table server).
    pub fn watching(&self) -> bool {
        self.me().is_none()
    }

    /// Whether the game is at a table server with more than one person's
    /// seat: leaving it lets a computer play for the one who left.
    pub fn shared(&self) -> bool {
        let Some(s) = &self.server else {
            return false;
        };
        let people = if s.seats.is_empty() {
            // Before the first update: the observation's seats, where an
            // absent person's seat shows as "NAME (away)".
            self.obs
                .seat_info
                .iter()
                .filter(|i| i.kind == game_table::SeatKind::Human || i.name.ends_with(" (away)"))
                .count()
        } else {
            s.seats
                .iter()
                .filter(|seat| seat.kind == SeatKindSummary::Human)
                .count()
        };
        people > 1
    }

    /// Whether leaving now leaves a game in progress that the player has a
    /// seat in (at a table server): the question before says what follows.
    pub fn leaving_a_game(&self) -> bool {
        self.server
            .as_ref()
            .is_some_and(|s| !s.failed && s.free == 0)
            && !self.watching()
            && !self.game_over()
    }

    /// The question before leaving a table server's game in progress.
    pub fn leave_question(&self) -> String {
        let Some(s) = &self.server else {
            return "Really quit? (y/n)".into();
        };
        if !self.shared() {
            return "Leave the table? Nobody else plays at it, so the game waits for you: \
                    mille --connect takes you back. (y/n)"
                .into();
        }
        let after = match s.away_seconds {
            Some(secs) => format!("after {secs} s"),
            None => "after a while".into(),
        };
        let loss = if s.rated() == Some(false) {
            ""
        } else {
            " (a loss in the ratings)"
        };
        format!(
            "Leave the table? A computer plays for you {after}, and if you are not back when \
             the game ends it counts as abandoned{loss}. (y/n)"
        )
    }

    /// The lines about the people who left the table, at the screen's
    /// time ("ann left: a computer plays for ann in 45 s").
    pub fn absence_lines(&self) -> Vec<String> {
        self.server
            .as_ref()
            .map_or_else(Vec::new, |s| s.absences.lines(s.clock))
    }

    /// Whether `seat` is the player's own.
    pub fn is_human(&self, seat: u8) -> bool {
        Some(seat) == self.me()
    }

    /// Number of sides.
    pub fn teams(&self) -> u8 {
        self.rules.teams
    }

    /// Whether the sides are teams of several players (4 or 6 players),
    /// which changes how they are named and numbered.
    pub fn in_teams(&self) -> bool {
        in_teams(&self.rules)
    }

    /// A seat's name: "You" for the player's; at a table server the name
    /// the table gives it (a person's name, or the computer's), else
    /// "Computer 2".
    pub fn seat_name(&self, seat: u8) -> String {
        if self.is_human(seat) {
            return "You".to_string();
        }
        if self.server.is_none() {
            return seat_name(&self.rules, seat);
        }
        self.obs
            .seat_info
            .get(usize::from(seat))
            .map_or_else(|| format!("Seat {}", seat + 1), |i| i.name.clone())
    }

    /// Whether a person plays `seat` (at a table server; at this
    /// terminal only the player's seat is a person's).
    pub fn is_person(&self, seat: u8) -> bool {
        match self.obs.seat_info.get(usize::from(seat)) {
            Some(info) if self.server.is_some() => info.kind == game_table::SeatKind::Human,
            _ => self.is_human(seat),
        }
    }

    /// A side's name on the board: its seats' names.
    pub fn team_name(&self, team: u8) -> String {
        let r = &self.rules;
        let seats: Vec<String> = r
            .seats_iter()
            .filter(|&s| r.team_of(s) == team)
            .map(|s| self.seat_name(s.number()))
            .collect();
        seats.join(" + ")
    }

    /// A bot's mark after its name on the board, from the table's seats:
    /// "(bot)", or "(bot, invited)" while the table waits for it; `None`
    /// for any other seat. (A bot that is away says so in its name
    /// already, as a person does.)
    pub fn bot_mark(&self, seat: u8) -> Option<&'static str> {
        let s = self.server.as_ref()?.seats.get(usize::from(seat))?;
        match (s.bot, s.invited) {
            (true, true) => Some("(bot, invited)"),
            (true, false) => Some("(bot)"),
            (false, _) => None,
        }
    }

    /// [`Model::team_name`] with each bot marked, for the board's titles.
    pub fn team_label(&self, team: u8) -> String {
        let r = &self.rules;
        let seats: Vec<String> = r
            .seats_iter()
            .filter(|&s| r.team_of(s) == team)
            .map(|s| self.marked(s.number(), self.seat_name(s.number())))
            .collect();
        seats.join(" + ")
    }

    /// `name` with the bot's mark of `seat` after it, if it is a bot's.
    fn marked(&self, seat: u8, name: String) -> String {
        match self.bot_mark(seat) {
            Some(mark) => format!("{name} {mark}"),
            None => name,
        }
    }

    /// The bots invited to the table that have not come yet, with their
    /// seats (from 0): the game starts when they have.
    pub fn invited_bots(&self) -> Vec<(usize, String)> {
        self.server
            .as_ref()
            .map_or_else(Vec::new, |s| table_client::seats::invited(&s.seats))
    }

    /// [`Model::team_label`] in fewer letters, for a narrow board: a
    /// computer's level is left out of its name ("Computer 2" for
    /// "Computer 2 (classic)"); "(away)" and a bot's mark stay, they are
    /// news.
    pub fn team_name_short(&self, team: u8) -> String {
        let r = &self.rules;
        let seats: Vec<String> = r
            .seats_iter()
            .filter(|&s| r.team_of(s) == team)
            .map(|s| {
                let name = self.seat_name(s.number());
                let short = match name.rsplit_once(" (") {
                    Some((head, _))
                        if !self.is_person(s.number())
                            && !name.ends_with(" (away)")
                            && name.ends_with(')') =>
                    {
                        head.to_string()
                    }
                    _ => name,
                };
                // That a side is a bot is news, like "(away)": it stays.
                self.marked(s.number(), short)
            })
            .collect();
        seats.join(" + ")
    }

    /// A side's name in the score window (a few letters): "You", "Us",
    /// "Them", "Comp", "C2", "T2", at a table server the seat's name when
    /// it fits, else its number ("P2"). A short name that is not the
    /// side's name is on the board too, in its title ([`Model::side_tag`]).
    pub fn team_short(&self, team: u8) -> String {
        let r = &self.rules;
        if Some(team) == self.my_team() {
            return if self.in_teams() { "Us" } else { "You" }.into();
        }
        if self.in_teams() {
            if r.teams == 2 && !self.watching() {
                "Them".into()
            } else {
                format!("T{}", team + 1)
            }
        } else if self.server.is_some() {
            // Playing alone at a server, a side is one seat: its name when
            // the column holds it (a name cut short would be another's, or
            // half of "bob (away)"), else the seat's number.
            let name = self.plain_seat_name(team);
            let room = if r.teams > 2 { 4 } else { 5 };
            if name.chars().count() <= room {
                name
            } else {
                format!("P{}", team + 1)
            }
        } else if r.seats == 2 {
            "Comp".into()
        } else {
            format!("C{team}")
        }
    }

    /// How the board's title of side `team` starts when the score window
    /// calls it by a number ("Team 2", "P3"), so that the reader finds it;
    /// `None` when the score window says its name (or "You", "Us",
    /// "Them", "Comp", "C2", which are plain on the board).
    pub fn side_tag(&self, team: u8) -> Option<String> {
        let short = self.team_short(team);
        let numbered = |prefix: char| {
            short
                .strip_prefix(prefix)
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        };
        if self.in_teams() && numbered('T') {
            Some(format!("Team {}", team + 1))
        } else if self.server.is_some() && !self.in_teams() && numbered('P') {
            Some(short)
        } else {
            None
        }
    }

    /// A seat's name without the "(away)" the server adds while a
    /// computer plays for its person.
    fn plain_seat_name(&self, seat: u8) -> String {
        let name = self.seat_name(seat);
        match name.strip_suffix(" (away)") {
            Some(n) => n.to_string(),
            None => name,
        }
    }

    /// The number the player types to aim a hazard at side `team`: the
    /// number the side's name carries on the board and in the score window.
    /// Playing alone, each side is one seat and Computer 2 (C2) is 2;
    /// in teams, Team 3 (T3) is 3.
    pub fn side_number(&self, team: u8) -> u8 {
        if self.in_teams() { team + 1 } else { team }
    }

    /// The opposing side the number `n` stands for, if any.
    pub fn side_of_number(&self, n: u8) -> Option<u8> {
        self.opponents()
            .into_iter()
            .find(|&t| self.side_number(t) == n)
    }

    /// The sides opposing the player's.
    pub fn opponents(&self) -> Vec<u8> {
        let own = self.own_team();
        (0..self.teams()).filter(|&t| t != own).collect()
    }

    /// The choices of the "which side?" question: "1 = Computer 1, 2 =
    /// Computer 2" playing alone, "2 or 3" in teams (the board shows
    /// which computers make up Team 2 and Team 3; their names would not
    /// fit the line).
    pub fn side_choices(&self) -> String {
        let numbers: Vec<String> = self
            .opponents()
            .into_iter()
            .map(|t| {
                if self.in_teams() {
                    self.side_number(t).to_string()
                } else {
                    format!("{} = {}", self.side_number(t), self.team_name(t))
                }
            })
            .collect();
        if self.in_teams() {
            match numbers.split_last() {
                Some((last, rest)) if !rest.is_empty() => {
                    format!("{} or {last}", rest.join(", "))
                }
                _ => numbers.join(""),
            }
        } else {
            numbers.join(", ")
        }
    }

    /// A side's name for the high-score table.
    pub fn team_score_name(&self, team: u8) -> String {
        if team == self.own_team() {
            self.player.clone()
        } else {
            "Computer".to_string()
        }
    }

    /// The hand as the seven slots of the board: slot 0 is P (the card just
    /// picked, when the hand is full), slots 1-6 the others, sorted when
    /// sorting is on.
    pub fn slots(&self) -> [Option<Card>; 7] {
        let hand = self.obs.view.hand.as_slice();
        let mut slots = [None; 7];
        let (p, rest) = if hand.len() >= 7 {
            (hand.last().copied(), &hand[..6])
        } else {
            (None, hand)
        };
        let mut rest: Vec<Card> = rest.to_vec();
        if self.sorted {
            rest.sort();
        }
        slots[0] = p;
        for (i, c) in rest.into_iter().take(6).enumerate() {
            slots[i + 1] = Some(c);
        }
        slots
    }

    /// Whether the player is to act (a turn, a coup fourré, an extension).
    pub fn human_to_act(&self) -> bool {
        self.obs.status.seat().is_some_and(|s| self.is_human(s))
    }

    /// The seat of another player to act, if any: a computer, or at a
    /// table server anyone but the player.
    pub fn computer_to_act(&self) -> Option<u8> {
        self.obs.status.seat().filter(|&s| !self.is_human(s))
    }

    /// One side's score items: running during the hand, final after it.
    pub fn hand_score(&self, team: u8) -> HandScore {
        self.obs
            .hand_scores
            .get(usize::from(team))
            .copied()
            .unwrap_or_default()
    }

    /// One side's game total including the hand in progress (or just
    /// scored).
    pub fn overall(&self, team: u8) -> u32 {
        self.obs
            .view
            .teams
            .get(usize::from(team))
            .map_or(0, |t| t.score.game + t.score.hand)
    }

    /// Games won by a side at this table.
    pub fn games_won(&self, team: u8) -> u32 {
        self.obs
            .games_won
            .get(usize::from(team))
            .copied()
            .unwrap_or(0)
    }

    /// The hand (or game) is over.
    pub fn hand_over(&self) -> bool {
        matches!(self.obs.status, PhaseView::HandOver | PhaseView::GameOver)
    }

    /// The game is over.
    pub fn game_over(&self) -> bool {
        self.obs.status == PhaseView::GameOver
    }

    /// The player's side; a spectator's board is laid out as seat 0's.
    pub fn own_team(&self) -> u8 {
        self.my_team().unwrap_or(0)
    }

    /// The player's side, `None` for a spectator.
    pub fn my_team(&self) -> Option<u8> {
        self.me()
            .and_then(|s| self.rules.seat(s))
            .map(|s| self.rules.team_of(s))
    }

    /// A side's tableau as the engine's [`Tableau`], built from what the
    /// observation shows of it, so that the engine says which hazard is
    /// cancelled and whether a limit holds.
    pub fn tableau(&self, team: u8) -> Tableau {
        self.obs
            .view
            .teams
            .get(usize::from(team))
            .map(tableau_of)
            .unwrap_or_default()
    }

    /// Cards left in the draw pile.
    pub fn deck_len(&self) -> u32 {
        self.obs.view.deck
    }

    /// The current trip length.
    pub fn target(&self) -> u16 {
        self.obs.view.target
    }

    /// Puts the question that goes with the game's phase, leaving typed
    /// input and save dialogs alone.
    pub fn sync_mode(&mut self) {
        let asking_game = matches!(
            self.mode,
            Mode::Normal
                | Mode::Another
                | Mode::Extension
                | Mode::PickCard { .. }
                | Mode::Target { .. }
        );
        if !asking_game {
            return;
        }
        self.mode = match self.obs.status {
            PhaseView::HandOver | PhaseView::GameOver => Mode::Another,
            PhaseView::Extension { seat } if self.is_human(seat) => Mode::Extension,
            _ => match self.mode {
                Mode::Another | Mode::Extension => Mode::Normal,
                ref m if self.human_to_act() => m.clone(),
                _ => Mode::Normal,
            },
        };
    }

    /// The player's settings saved with the game record.
    pub fn save_settings(&self) -> SaveSettings {
        SaveSettings {
            level: self.level.id().to_string(),
            player: self.player.clone(),
            sorted: self.sorted,
        }
    }

    /// The current mouse method.
    pub fn mouse(&self) -> MouseMethod {
        self.options.mouse
    }

    /// Sets an error message (the caller rings the bell).
    pub fn error(&mut self, text: impl Into<String>) {
        self.message = Some(text.into());
        self.message_is_error = true;
        self.message_until_turn = false;
    }

    /// Sets a notice.
    pub fn notice(&mut self, text: impl Into<String>) {
        self.message = Some(text.into());
        self.message_is_error = false;
        self.message_until_turn = false;
    }

    /// Says that `seat` (a computer player) is to act, not the player: a
    /// key typed while the computer plays is not a mistake, so no bell,
    /// and the notice goes when the player's turn comes.
    pub fn wait_for(&mut self, seat: u8) {
        let who = self.seat_name(seat);
        self.notice(format!("Wait: {who} is playing."));
        self.message_until_turn = true;
    }

    /// Clears the message line.
    pub fn clear_message(&mut self) {
        self.message = None;
        self.message_is_error = false;
        self.message_until_turn = false;
    }
}

/// Whether the sides under `rules` are teams of several players.
fn in_teams(rules: &Rules) -> bool {
    rules.seats > rules.teams
}

/// A seat's name under `rules`: "You", "Computer", "Computer 2".
pub fn seat_name(rules: &Rules, seat: u8) -> String {
    if seat == HUMAN {
        "You".to_string()
    } else if rules.seats == 2 {
        "Computer".to_string()
    } else {
        format!("Computer {seat}")
    }
}

/// How `event` reads in the log of `model` ("Computer played Stop on
/// you"); `None` for what nobody needs to read about (draws, deals).
pub(crate) fn describe(model: &Model, event: &GameEvent) -> Option<String> {
    let rules = &model.rules;
    let who = |seat| model.seat_name(seat);
    Some(match *event {
        GameEvent::Played {
            seat,
            card,
            team: target,
        } => {
            let who = who(seat);
            match card.kind() {
                Kind::Hazard => {
                    let on = if Some(target) == model.my_team() {
                        if in_teams(rules) {
                            "your team".to_string()
                        } else {
                            "you".to_string()
                        }
                    } else {
                        model.team_name(target)
                    };
                    format!("{who} played {card} on {on}")
                }
                Kind::Distance => format!("{who} played {card} miles"),
                Kind::Safety => format!("{who} played the safety {card}"),
                Kind::Remedy => format!("{who} played {card}"),
            }
        }
        GameEvent::Discarded { seat, card } => format!("{} discarded {card}", who(seat)),
        GameEvent::CoupFourre { seat, safety, .. } => {
            format!("COUP FOURRÉ! {} answered with {safety}", who(seat))
        }
        GameEvent::Extension { seat, extend: true } => format!(
            "{} extended the trip to {} miles",
            who(seat),
            extended_target(rules)
        ),
        GameEvent::Extension {
            seat,
            extend: false,
        } => format!("{} ended the trip at {} miles", who(seat), rules.target),
        _ => return None,
    })
}

/// The trip length after an extension under `rules`.
pub fn extended_target(rules: &Rules) -> u16 {
    rules.extended_target.unwrap_or(rules.target)
}

/// Whether `action` shows in the log of moves (picks and deals do not).
pub fn is_logged(action: Action) -> bool {
    !matches!(
        action,
        Action::Draw | Action::DeclineCoupFourre | Action::NextHand | Action::NextGame
    )
}

/// A side's tableau as the engine keeps it, from its public view.
fn tableau_of(tv: &TeamView) -> Tableau {
    let mut t = Tableau::default();
    for &c in &tv.battle {
        t.battle.push(c);
    }
    for &c in &tv.speed {
        t.speed.push(c);
    }
    for &c in &tv.distance {
        if let Some(i) = Card::DISTANCES.iter().position(|&d| d == c) {
            t.distance[i] = t.distance[i].saturating_add(1);
            t.miles = t.miles.saturating_add(c.miles());
        }
    }
    for &c in &tv.safeties {
        if let Some(s) = c.safety() {
            t.safeties.insert(s);
        }
    }
    for &c in &tv.coups {
        if let Some(s) = c.safety() {
            t.coups.insert(s);
        }
    }
    t
}

impl Model {
    /// What the message line says when the connection is back and the
    /// table has told what happened meanwhile (`events`): the last of it,
    /// in the words of the log.
    pub fn missed(&self, events: &[GameEvent]) -> String {
        let told: Vec<String> = events
            .iter()
            .filter_map(|e| match *e {
                GameEvent::Dealt { hand, .. } => Some(format!("hand {} was dealt", hand + 1)),
                GameEvent::NewGame => Some("a new game began".into()),
                GameEvent::TripCompleted { team } => Some(if Some(team) == self.my_team() {
                    "you completed the trip".into()
                } else {
                    format!("{} completed the trip", self.team_name(team))
                }),
                GameEvent::GameOver { .. } => Some("the game ended".into()),
                _ => describe(self, e),
            })
            .collect();
        match told.as_slice() {
            [] => "Reconnected: nothing happened at the table meanwhile.".into(),
            [one] => format!("Reconnected. Meanwhile {one}."),
            [.., a, b] if told.len() == 2 => format!("Reconnected. Meanwhile {a}; {b}."),
            [.., a, b] => format!(
                "Reconnected. {} things happened meanwhile, the last: {a}; {b}.",
                told.len()
            ),
        }
    }

    /// Whether the last move shown in the log is a computer player's.
    pub fn last_logged_is_computer(&self) -> bool {
        self.log.last_seat.is_some_and(|s| !self.is_human(s))
    }

    /// The line that tells the player what the game waits for.
    pub fn prompt(&self) -> String {
        match &self.mode {
            Mode::Name { buf } => {
                format!(
                    "Your name for the high-score table (RETURN or ESC keeps {}): {buf}",
                    self.default_name
                )
            }
            Mode::PickCard { verb, slot } => {
                let v = match verb {
                    Verb::Use => "Use",
                    Verb::Discard => "Discard",
                };
                let typed = slot.map_or(String::new(), slot_label);
                format!("{v} which card? (1-6 or P, then RETURN or SPACE): {typed}")
            }
            Mode::Target { card } => {
                let which = if self.in_teams() { "team" } else { "side" };
                format!(
                    "Play {card} on which {which}? ({}; ESC cancels)",
                    self.side_choices()
                )
            }
            Mode::ConfirmQuit if self.server.is_some() && self.watching() => {
                "Stop watching and go back to the lobby? (y/n)".into()
            }
            Mode::ConfirmQuit if self.leaving_a_game() => self.leave_question(),
            Mode::ConfirmQuit if self.server.as_ref().is_some_and(|s| s.free > 0) => {
                "Leave the table? (y/n)".into()
            }
            Mode::ConfirmQuit => "Really quit? (y/n)".into(),
            Mode::ConfirmDiscard { card } => {
                format!("{card} is a safety: really discard it? (y/n)")
            }
            Mode::SaveOnExit { .. } => "Save the game? (y/n)".into(),
            Mode::SaveSame { path, .. } => {
                format!("Save in {}? (y/n)", path.display())
            }
            Mode::SaveName { buf, .. } => {
                format!("Save in file (RETURN alone cancels): {buf}")
            }
            Mode::Saving { .. } => "Saving...".into(),
            Mode::Another => {
                if self.game_over() {
                    let w = &self.winners;
                    let who = if w.len() > 1 {
                        "It's a tie!".to_string()
                    } else if w.first().is_some_and(|&t| Some(t) == self.my_team()) {
                        if self.in_teams() {
                            "Your team won the game!".to_string()
                        } else {
                            "You won the game!".to_string()
                        }
                    } else {
                        format!(
                            "{} won the game.",
                            self.team_name(w.first().copied().unwrap_or(1))
                        )
                    };
                    if self.server.is_some() {
                        // The table's game is over for good: there is no
                        // other to deal there.
                        let to = if self.watching() {
                            "go back to the lobby"
                        } else {
                            "leave the table"
                        };
                        return format!("{who} Press q to {to}.");
                    }
                    format!("{who} Another game? (y/n)")
                } else {
                    let trip = match self.completed {
                        Some(t) if Some(t) == self.my_team() => {
                            "You completed the trip! ".to_string()
                        }
                        Some(t) => format!("{} completed the trip. ", self.team_name(t)),
                        None => "Nobody completed the trip. ".to_string(),
                    };
                    match &self.server {
                        Some(_) if self.watching() => {
                            format!("{trip}The players deal the next hand when ready.")
                        }
                        Some(s) if s.ready => {
                            format!("{trip}Waiting for the others to be ready...")
                        }
                        // The others wait for this answer: say what each
                        // key does (n is no way out any more: q is).
                        Some(_) if self.shared() => {
                            format!("{trip}Ready for the next hand? y; Q leaves the table")
                        }
                        _ => format!("{trip}Another hand? (y/n)"),
                    }
                }
            }
            Mode::Extension => format!(
                "You made {} miles! Extend the trip to {} miles? (y/n)",
                self.rules.target,
                extended_target(&self.rules)
            ),
            Mode::Help => "Press any key to go back to the game.".into(),
            Mode::Quitting => String::new(),
            Mode::Normal if self.server.as_ref().is_some_and(|s| s.failed) => {
                "The connection is lost: q leaves (mille --connect takes you back).".into()
            }
            Mode::Normal if self.server.as_ref().is_some_and(|s| s.free > 0) => {
                let free = self.server.as_ref().map_or(0, |s| s.free);
                let players = if free == 1 { "player" } else { "players" };
                format!("Waiting for {free} more {players} to sit down at this table...")
            }
            Mode::Normal if !self.invited_bots().is_empty() => {
                let invited = self.invited_bots();
                let bots: Vec<String> = invited.iter().map(|(_, b)| format!("{b} (bot)")).collect();
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
            Mode::Normal if self.watching() => match self.obs.status {
                PhaseView::Extension { seat } => format!(
                    "Watching: {} decides whether to extend the trip to {} miles. q: lobby.",
                    self.seat_name(seat),
                    extended_target(&self.rules)
                ),
                _ => match self.obs.status.seat() {
                    Some(seat) => format!(
                        "Watching: {} to play. q goes back to the lobby.",
                        self.seat_name(seat)
                    ),
                    None => "Watching. q goes back to the lobby.".into(),
                },
            },
            Mode::Normal => match self.obs.status {
                PhaseView::Turn { seat, drawn } if self.is_human(seat) => {
                    if !drawn {
                        "Your turn: P to pick a card.".into()
                    } else if self.deck_len() == 0 {
                        "Your turn (deck empty): U to use or D to discard a card.".into()
                    } else {
                        "Your turn: U to use or D to discard a card.".into()
                    }
                }
                PhaseView::CoupFourre { seat, hazard, .. } if self.is_human(seat) => {
                    let safety = hazard.safety().map_or(hazard, |s| s.card());
                    format!(
                        "Coup fourré! U the {safety} to answer the {hazard}, or P to let it pass."
                    )
                }
                // Another player decides whether to go on to the longer
                // trip: say so, not just whose turn it is.
                PhaseView::Extension { seat } => format!(
                    "Waiting for {} to decide whether to extend the trip to {} miles...",
                    self.seat_name(seat),
                    extended_target(&self.rules)
                ),
                _ => match self.computer_to_act() {
                    Some(seat) if self.thinking && !self.is_person(seat) => {
                        format!("{} is thinking...", self.seat_name(seat))
                    }
                    Some(seat) => format!("Waiting for {}...", self.seat_name(seat)),
                    None => "Waiting...".into(),
                },
            },
        }
    }
}

/// "P" for slot 0, else the digit.
pub fn slot_label(slot: usize) -> String {
    if slot == 0 {
        "P".into()
    } else {
        slot.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_login_name_comes_from_the_environment_then_the_system() {
        let none = |_: &str| None;
        assert_eq!(login_name_from(none, || Some("ana".into())), "ana");
        assert_eq!(
            login_name_from(
                |v| (v == "LOGNAME").then(|| "bob".to_string()),
                || Some("ana".into())
            ),
            "bob"
        );
        assert_eq!(
            login_name_from(|_| Some(" ".into()), || Some("ana".into())),
            "ana"
        );
        assert_eq!(login_name_from(none, || None), "Player");
    }
}
