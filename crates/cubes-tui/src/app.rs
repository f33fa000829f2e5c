//! The game as the terminal shows it: a model ([`App`]) and a pure
//! [`App::update`] from inputs. No terminal here, so everything is testable;
//! every rule decision is the engine's, and refusals show the engine's own
//! sentence.

use cubes_ai::Bot;
use cubes_engine::{
    Action, DiceMask, DieState, Event, Face, GameRecord, IllegalAction, Phase, Settings,
    SetupError, State, ToAct,
};

/// Who sits in a seat.
pub enum SeatKind {
    /// A person at the keyboard.
    Human,
    /// A computer player.
    Computer(Box<dyn Bot>),
}

/// A seat at the table.
pub struct Seat {
    /// Name shown and recorded.
    pub name: String,
    /// Human or computer.
    pub kind: SeatKind,
}

impl Seat {
    /// Whether a computer plays this seat.
    pub fn is_computer(&self) -> bool {
        matches!(self.kind, SeatKind::Computer(_))
    }
}

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
    /// The game.
    pub state: State,
    /// Its record (seed + actions).
    pub record: GameRecord,
    /// The seats.
    pub seats: Vec<Seat>,
    /// Dice the human has picked to keep.
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
pub fn announcement(state: &State) -> String {
    let s = state.settings();
    let mut m = format!("{} game to {} points.", s.name, points(s.target));
    if state.jokers() {
        m.push_str(&format!(
            " This is a JOKERS game: 13-sided dice with a Joker (face value {}).",
            Face::Joker.face_value()
        ));
    }
    m
}

impl App {
    /// A new game; the engine refuses a table it cannot seat.
    pub fn new(settings: Settings, seats: Vec<Seat>, seed: u64) -> Result<App, SetupError> {
        let state = State::new(settings.clone(), seats.len(), seed)?;
        let record = GameRecord::new(settings, seats.len(), seed);
        let message = (announcement(&state), Tone::Info);
        let mut app = App {
            state,
            record,
            seats,
            selected: DiceMask::EMPTY,
            message,
            message_serial: 0,
            controls: Controls::Keys,
            log: Vec::new(),
            logged: 2,
            mode: Mode::Play,
            busted: None,
            too_small: false,
        };
        let first = app.seats[0].name.clone();
        app.log.push(app.message.0.clone());
        app.log.push(format!("{first} starts."));
        app.message.0 = app.start_message();
        Ok(app)
    }

    /// The same game played with other controls (before the first move).
    pub fn with_controls(mut self, controls: Controls) -> App {
        self.controls = controls;
        if self.record.actions.is_empty() {
            self.message.0 = self.start_message();
        }
        self
    }

    fn start_message(&self) -> String {
        let mut m = announcement(&self.state);
        if !self.seats[0].is_computer() {
            m.push_str(match self.controls {
                Controls::Keys => " Press r to roll the dice, ? for help.",
                Controls::Lines => " Type r to roll the dice, ? for the commands.",
            });
        }
        m
    }

    /// Sets the status line.
    pub fn say(&mut self, m: impl Into<String>, tone: Tone) {
        self.message = (m.into(), tone);
        self.message_serial += 1;
    }

    /// The seat to act, if the game goes on.
    pub fn to_act(&self) -> Option<usize> {
        match self.state.to_act() {
            ToAct::Seat(s) => Some(s),
            ToAct::GameOver { .. } => None,
        }
    }

    /// Whether a human must act now.
    pub fn human_to_act(&self) -> bool {
        self.to_act().is_some_and(|s| !self.seats[s].is_computer())
    }

    /// Whether the game has humans at all.
    pub fn has_humans(&self) -> bool {
        self.seats.iter().any(|s| !s.is_computer())
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

    /// Whether the player to act may hold now, as a short line for the
    /// screen and the plain status line; `None` before the dice are rolled.
    pub fn hold_line(&self) -> Option<String> {
        match self.state.can_hold() {
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
                self.mode = if self.state.winner().is_some() {
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
                if self.has_humans() {
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
        if self.seats[seat].is_computer() {
            if input == Input::Tick {
                let view = self.state.view(seat);
                let action = match &mut self.seats[seat].kind {
                    SeatKind::Computer(bot) => bot.act(&view),
                    SeatKind::Human => return Effect::None,
                };
                return self.apply(action);
            }
            let m = format!(
                "{} is playing; wait for your turn (? help, q quit).",
                self.seats[seat].name
            );
            self.say(m, Tone::Info);
            return Effect::None;
        }
        match input {
            Input::Key(c @ '1'..='5') => {
                let i = usize::from(c as u8 - b'1');
                let turn = self.state.turn();
                match (self.state.phase(), turn.states[i]) {
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
                match self.state.turn().all_scoring_keep() {
                    Some(k) if self.state.phase() == Phase::Rolled => {
                        self.selected = k.mask;
                        self.describe_selection();
                    }
                    _ => self.error(self.roll_first()),
                }
                Effect::None
            }
            Input::Key('r' | 'R' | ' ') | Input::Enter => {
                if self.state.phase() == Phase::Start {
                    return self.apply(Action::Roll);
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
                self.apply(Action::Keep(self.selected))
            }
            Input::Key('h' | 'H' | 'b' | 'B') => self.apply(Action::Hold),
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
        match self.state.turn().score_keep(self.selected) {
            Some(k) => {
                let left = self.state.turn().mask(DieState::Rolled).len() - self.selected.len();
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
            None => self.error("These dice do not all score: every die you keep must be part of a scoring combination."),
        }
    }

    fn apply(&mut self, action: Action) -> Effect {
        let seat = self.state.current();
        match self.state.apply(action) {
            Err(e) => {
                self.error(e.to_string());
                Effect::None
            }
            Ok(events) => {
                self.record.actions.push(action);
                self.selected = DiceMask::EMPTY;
                // A bust's dice stay on screen until somebody rolls again.
                if action == Action::Roll {
                    self.busted = None;
                }
                let mut last_roll = None;
                for e in &events {
                    match e {
                        Event::Rolled { dice, rolled, .. } => last_roll = Some((*dice, *rolled)),
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
                let mut lines = Vec::new();
                for e in &events {
                    lines.push(self.describe(e));
                }
                let who = &self.seats[seat].name;
                let summary = lines
                    .iter()
                    .filter(|l| !l.is_empty())
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" ");
                let before = self.log.len();
                self.log.extend(lines.into_iter().filter(|l| !l.is_empty()));
                self.logged += self.log.len() - before;
                if self.log.len() > 200 {
                    self.log.drain(..self.log.len() - 200);
                }
                let rolled = self.state.phase() == Phase::Rolled;
                let hint = match (self.to_act(), self.controls) {
                    (Some(s), _) if self.seats[s].is_computer() => "",
                    (None, _) => "",
                    (Some(_), Controls::Keys) if rolled => {
                        " Pick dice to keep (1-5, a), then r; or h to hold."
                    }
                    (Some(_), Controls::Lines) if rolled => {
                        " Keep dice and roll the others (k 1 3, or a then r); or h to hold."
                    }
                    (Some(_), Controls::Keys) => " Press r to roll.",
                    (Some(_), Controls::Lines) => " Type r to roll.",
                };
                let _ = who;
                self.say(format!("{summary}{hint}"), Tone::Info);
                if self.state.winner().is_some() {
                    self.mode = Mode::Over;
                    return Effect::GameOver;
                }
                Effect::None
            }
        }
    }

    /// One event as a sentence.
    pub fn describe(&self, e: &Event) -> String {
        let name = |s: usize| self.seats[s].name.clone();
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
                let top = self.state.players()[*leader].score;
                let tied: Vec<String> = self
                    .state
                    .players()
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
                    points(self.state.settings().overtime_lead)
                )
            }
            Event::Overtime { leader, lead } => format!(
                "Overtime! {} leads by {}; the winner must lead by {}.",
                name(*leader),
                points(*lead),
                points(self.state.settings().overtime_lead)
            ),
            Event::TurnStarted { seat } => format!("{}'s turn.", name(*seat)),
            Event::GameOver { winner } => format!(
                "{} wins with {} points!",
                name(*winner),
                points(self.state.players()[*winner].score)
            ),
        }
    }
}

/// The tables the tests of app, plain and ui play at, written out once.
#[cfg(test)]
pub mod fixtures {
    use super::{App, Seat, SeatKind};
    use cubes_ai::Personality;
    use cubes_engine::Settings;

    /// ann, a person, against Steady Sam.
    pub fn ann_vs_sam(settings: Settings, seed: u64) -> App {
        let seats = vec![
            Seat {
                name: "ann".into(),
                kind: SeatKind::Human,
            },
            Seat {
                name: "Steady Sam".into(),
                kind: SeatKind::Computer(Box::new(Personality::steady())),
            },
        ];
        App::new(settings, seats, seed).expect("app")
    }

    /// ann alone: a person always to act.
    pub fn ann_alone(settings: Settings, seed: u64) -> App {
        let seats = vec![Seat {
            name: "ann".into(),
            kind: SeatKind::Human,
        }];
        App::new(settings, seats, seed).expect("app")
    }

    /// Bold Bella against Steady Sam: computers only, so ticks play the
    /// whole game.
    pub fn bella_vs_sam(settings: Settings, seed: u64) -> App {
        let seats = vec![
            Seat {
                name: "Bold Bella".into(),
                kind: SeatKind::Computer(Box::new(Personality::bold())),
            },
            Seat {
                name: "Steady Sam".into(),
                kind: SeatKind::Computer(Box::new(Personality::steady())),
            },
        ];
        App::new(settings, seats, seed).expect("app")
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
        assert_eq!(a.record.actions, vec![Action::Roll]);
        if a.state.phase() == Phase::Rolled {
            a.update(Input::Enter);
            assert!(a.message.0.starts_with("First pick"), "{}", a.message.0);
            a.update(Input::Key('a'));
            assert!(!a.selected.is_empty());
            assert!(a.message.0.starts_with("Keep "), "{}", a.message.0);
            a.update(Input::Key('r'));
            assert_eq!(a.record.actions.len(), 2);
        }
        // The record replays to the same state.
        assert!(a.record.replay().expect("replays") == a.state);
    }

    #[test]
    fn a_picks_every_scoring_die_even_a_lone_joker() {
        // The audit's game: seed 29 with Jokers dice rolls 3 5 4 2 J. `a`
        // used to pick the small straight only and roll one die; all five
        // dice score, so keeping them all rolls five fresh dice.
        let settings = Settings::standard().with_jokers(cubes_engine::JokerRule::Always);
        let mut a = ann_vs_sam(settings, 29);
        a.update(Input::Key('r'));
        let faces: String = a.state.turn().dice.iter().map(|d| d.symbol()).collect();
        assert_eq!(faces, "3542J");
        a.update(Input::Key('a'));
        assert_eq!(a.selected, DiceMask::ALL);
        assert!(a.message.0.contains("rolls 5 dice"), "{}", a.message.0);
        a.update(Input::Key('r'));
        assert_eq!(a.state.turn().points, 400);
        assert_eq!(a.state.turn().mask(DieState::Held), DiceMask::EMPTY);
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
        assert!(a.record.actions.is_empty());
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
        assert_eq!(a.record.actions, vec![Action::Roll]);
    }

    #[test]
    fn help_opens_and_closes() {
        let mut a = app();
        a.update(Input::Key('?'));
        assert_eq!(a.mode, Mode::Help);
        a.update(Input::Key('x'));
        assert_eq!(a.mode, Mode::Play);
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
