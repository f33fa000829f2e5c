//! What the screen shows: the game (engine state and record), the question
//! being asked, the messages, and the player's settings.

use mille_ai::Level;
use mille_engine::{
    Action, Card, GameRecord, HandScore, Kind, Phase, ReplayError, ReplayStep, Rules, State, ToAct,
};
use mille_store::{MouseMethod, Options, SaveFile, SaveSettings};
use std::path::PathBuf;

/// The human always sits in seat 0 (team 0).
pub const HUMAN: u8 = 0;

/// Most moves kept in the log under the board.
pub const MAX_LOG: usize = 8;

/// Settings a game is started with.
#[derive(Clone, Debug)]
pub struct Settings {
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
    /// "Extend the trip to 1000 miles?"
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
    /// The engine's truth.
    pub state: State,
    /// Every action so far.
    pub record: GameRecord,
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
    /// Bumped on every change of the game state, so a computer move thought
    /// out for an older state is dropped.
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
/// afresh. It is a function of the record, so [`MoveLog::replay`] builds
/// it for a restored or undone game line for line as play showed it, in
/// the same replay as the state.
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
    /// Adds `seat`'s `action`, just applied in a game under `rules`.
    pub fn push(&mut self, rules: &Rules, seat: u8, action: Action) {
        let fresh = matches!(action, Action::NextHand | Action::NextGame)
            || (seat == HUMAN && action != Action::Draw);
        if fresh {
            self.lines.clear();
            self.last_seat = None;
        }
        if let Some(line) = describe(rules, seat, action) {
            self.last_seat = Some(seat);
            self.lines.push(line);
            if self.lines.len() > MAX_LOG {
                self.lines.remove(0);
            }
        }
    }

    /// Adds an action of a replay (see [`GameRecord::replay_with`]).
    pub fn push_step(&mut self, step: &ReplayStep<'_>) {
        let seat = match step.actor {
            ToAct::Seat(s) => s,
            // Deals: made on the player's say-so.
            ToAct::Deal | ToAct::GameOver => HUMAN,
        };
        self.push(step.state.rules(), seat, step.action);
    }

    /// Replays `record`: its state, and its log as play showed it.
    pub fn replay(record: &GameRecord) -> Result<(State, MoveLog), ReplayError> {
        let mut log = MoveLog::default();
        let state = record.replay_with(|step| log.push_step(&step))?;
        Ok((state, log))
    }
}

impl Model {
    /// A model for a game in `state` reached by `record`. The log of moves
    /// is rebuilt from the record (empty when the record does not replay:
    /// a test position); a restored game whose log was built while its
    /// save was checked comes in by [`Model::with_log`] instead, replayed
    /// once.
    pub fn new(record: GameRecord, state: State, settings: Settings) -> Model {
        let log = MoveLog::replay(&record)
            .map(|(_, log)| log)
            .unwrap_or_default();
        Model::with_log(record, state, log, settings)
    }

    /// A model for a game in `state` reached by `record`, showing `log`
    /// (built by [`MoveLog::push_step`] in the replay that reached
    /// `state`: a restored game shows the moves it showed when saved).
    pub fn with_log(record: GameRecord, state: State, log: MoveLog, settings: Settings) -> Model {
        let mut m = Model {
            state,
            record,
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
            log,
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
        };
        if settings.ask_name {
            m.mode = Mode::Name { buf: String::new() };
        } else {
            m.sync_mode();
        }
        m
    }

    /// Adds `seat`'s `action` (just applied) to the log of moves.
    pub fn log_action(&mut self, seat: u8, action: Action) {
        self.log.push(self.state.rules(), seat, action);
    }

    /// The seat of a team's first player.
    pub fn is_human(&self, seat: u8) -> bool {
        seat == HUMAN
    }

    /// Number of sides.
    pub fn teams(&self) -> u8 {
        self.state.rules().teams
    }

    /// Whether the sides are teams of several players (4 or 6 players),
    /// which changes how they are named and numbered.
    pub fn in_teams(&self) -> bool {
        in_teams(self.state.rules())
    }

    /// A seat's name.
    pub fn seat_name(&self, seat: u8) -> String {
        seat_name(self.state.rules(), seat)
    }

    /// A side's name on the board.
    pub fn team_name(&self, team: u8) -> String {
        team_name(self.state.rules(), team)
    }

    /// A side's name in the score window (a few letters).
    pub fn team_short(&self, team: u8) -> String {
        let r = self.state.rules();
        if self.in_teams() && r.teams == 2 {
            if team == self.state.team_of(HUMAN) {
                "Us".into()
            } else {
                "Them".into()
            }
        } else if team == self.state.team_of(HUMAN) {
            if self.in_teams() {
                "Us".into()
            } else {
                "You".into()
            }
        } else if r.seats == 2 {
            "Comp".into()
        } else if self.in_teams() {
            format!("T{}", team + 1)
        } else {
            format!("C{team}")
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
        let own = self.state.team_of(HUMAN);
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
        if team == self.state.team_of(HUMAN) {
            self.player.clone()
        } else {
            "Computer".to_string()
        }
    }

    /// The hand as the seven slots of the board: slot 0 is P (the card just
    /// picked, when the hand is full), slots 1-6 the others, sorted when
    /// sorting is on.
    pub fn slots(&self) -> [Option<Card>; 7] {
        let hand = self.state.hand(HUMAN);
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
        self.state.to_act() == ToAct::Seat(HUMAN)
    }

    /// The seat of a computer player to act, if any.
    pub fn computer_to_act(&self) -> Option<u8> {
        match self.state.to_act() {
            ToAct::Seat(s) if s != HUMAN => Some(s),
            _ => None,
        }
    }

    /// One side's score items: running during the hand, final after it.
    pub fn hand_score(&self, team: u8) -> HandScore {
        self.state.hand_points(team)
    }

    /// One side's game total including the hand in progress.
    pub fn overall(&self, team: u8) -> u32 {
        let before = self.state.totals().get(team as usize).copied().unwrap_or(0);
        if self.hand_over() {
            before
        } else {
            before + u32::from(self.hand_score(team).total())
        }
    }

    /// The hand (or game) is over.
    pub fn hand_over(&self) -> bool {
        matches!(self.state.phase(), Phase::HandOver | Phase::GameOver)
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
        self.mode = match self.state.phase() {
            Phase::HandOver | Phase::GameOver => Mode::Another,
            Phase::Extension { seat } if seat == HUMAN => Mode::Extension,
            _ => match self.mode {
                Mode::Another | Mode::Extension => Mode::Normal,
                ref m if self.human_to_act() => m.clone(),
                _ => Mode::Normal,
            },
        };
    }

    /// The save document of the game as it stands.
    pub fn save_file(&self) -> SaveFile {
        SaveFile::new(
            self.record.clone(),
            SaveSettings {
                level: self.level.id().to_string(),
                player: self.player.clone(),
                sorted: self.sorted,
            },
        )
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

    /// How an action of `seat` reads in the log ("Computer played Stop on
    /// You"); `None` for moves nobody needs to read about (draws).
    pub fn describe(&self, seat: u8, action: Action) -> Option<String> {
        describe(self.state.rules(), seat, action)
    }
}

/// Whether the sides under `rules` are teams of several players.
fn in_teams(rules: &Rules) -> bool {
    rules.seats > rules.teams
}

/// A seat's name under `rules`: "You", "Computer", "Computer 2".
fn seat_name(rules: &Rules, seat: u8) -> String {
    if seat == HUMAN {
        "You".to_string()
    } else if rules.seats == 2 {
        "Computer".to_string()
    } else {
        format!("Computer {seat}")
    }
}

/// A side's name on the board under `rules`: its seats' names.
fn team_name(rules: &Rules, team: u8) -> String {
    let seats: Vec<String> = (0..rules.seats)
        .filter(|&s| rules.team_of(s) == team)
        .map(|s| seat_name(rules, s))
        .collect();
    seats.join(" + ")
}

/// How an action of `seat` reads in the log under `rules` (see
/// [`Model::describe`]). It needs the rules only, so a replay can log a
/// game before there is a model of it.
fn describe(rules: &Rules, seat: u8, action: Action) -> Option<String> {
    let who = seat_name(rules, seat);
    Some(match action {
        Action::Play { card, target } => match card.kind() {
            Kind::Hazard => {
                let on = if target == rules.team_of(HUMAN) {
                    if in_teams(rules) {
                        "your team".to_string()
                    } else {
                        "you".to_string()
                    }
                } else {
                    team_name(rules, target)
                };
                format!("{who} played {card} on {on}")
            }
            Kind::Distance => format!("{who} played {card} miles"),
            Kind::Safety => format!("{who} played the safety {card}"),
            Kind::Remedy => format!("{who} played {card}"),
        },
        Action::Discard(c) => format!("{who} discarded {c}"),
        Action::CoupFourre(c) => format!("COUP FOURRÉ! {who} answered with {c}"),
        Action::Extend(true) => format!("{who} extended the trip to 1000 miles"),
        Action::Extend(false) => format!("{who} ended the trip at 700 miles"),
        Action::Draw | Action::DeclineCoupFourre | Action::NextHand | Action::NextGame => {
            return None;
        }
    })
}

/// Whether `action` shows in the log of moves (picks and deals do not).
pub fn is_logged(action: Action) -> bool {
    !matches!(
        action,
        Action::Draw | Action::DeclineCoupFourre | Action::NextHand | Action::NextGame
    )
}

impl Model {
    /// Whether the last move shown in the log is a computer player's.
    pub fn last_logged_is_computer(&self) -> bool {
        self.log.last_seat.is_some_and(|s| s != HUMAN)
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
                if self.state.phase() == Phase::GameOver {
                    let w = self.state.winners();
                    let who = if w.len() > 1 {
                        "It's a tie!".to_string()
                    } else if w.first() == Some(&self.state.team_of(HUMAN)) {
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
                    format!("{who} Another game? (y/n)")
                } else {
                    let trip = match self.state.completed() {
                        Some(t) if t == self.state.team_of(HUMAN) => {
                            "You completed the trip! ".to_string()
                        }
                        Some(t) => format!("{} completed the trip. ", self.team_name(t)),
                        None => "Nobody completed the trip. ".to_string(),
                    };
                    format!("{trip}Another hand? (y/n)")
                }
            }
            Mode::Extension => "You made 700 miles! Extend the trip to 1000 miles? (y/n)".into(),
            Mode::Help => "Press any key to go back to the game.".into(),
            Mode::Quitting => String::new(),
            Mode::Normal => match self.state.phase() {
                Phase::Turn { seat, drawn } if seat == HUMAN => {
                    if !drawn {
                        "Your turn: P to pick a card.".into()
                    } else if self.state.deck_len() == 0 {
                        "Your turn (deck empty): U to use or D to discard a card.".into()
                    } else {
                        "Your turn: U to use or D to discard a card.".into()
                    }
                }
                Phase::CoupFourre { seat, hazard, .. } if seat == HUMAN => {
                    let safety = hazard.safety().map_or(hazard, |s| s.card());
                    format!(
                        "Coup fourré! U the {safety} to answer the {hazard}, or P to let it pass."
                    )
                }
                _ => match self.computer_to_act() {
                    Some(seat) if self.thinking => {
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
