//! The game as the terminal shows it: a model ([`App`]) and a pure
//! [`App::update`] from inputs. No terminal here, so everything is testable.
//!
//! The game itself is a [`game_table::Table`] of [`Cubes`]: a person's move
//! goes to [`Table::act`], a computer's comes from [`Table::step`], and the
//! engine checks both (a refusal shows the engine's own sentence). The
//! screen is drawn from [`App::obs`], the [`Observation`] of the person to
//! act, or a spectator's while a computer plays or when the game is over:
//! never from the engine's full state.

use cubes_engine::{
    Action, Cubes, DiceMask, DieState, Event, Face, IllegalAction, Observation, Phase, Settings,
    SetupError, View,
};
use game_table::{Player, SeatInfo, SeatKind, Step, Table, Turn, Viewer};

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
    /// The game: its state, seats, computer players and action log.
    table: Table<Cubes>,
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
            table,
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

    /// The same game played with other controls (before the first move).
    pub fn with_controls(mut self, controls: Controls) -> App {
        self.controls = controls;
        if self.table.log().is_empty() {
            self.message.0 = self.start_message();
        }
        self
    }

    /// The table, for the host: the game's full state (to record the
    /// result) and its action log. Never for drawing.
    pub fn table(&self) -> &Table<Cubes> {
        &self.table
    }

    /// Every move made so far.
    pub fn actions(&self) -> &[Action] {
        self.table.log()
    }

    fn start_message(&self) -> String {
        let mut m = announcement(&self.obs.view);
        if self.human_to_act() {
            m.push_str(match self.controls {
                Controls::Keys => " Press r to roll the dice, ? for help.",
                Controls::Lines => " Type r to roll the dice, ? for the commands.",
            });
        }
        m
    }

    /// Whose observation the screen shows: the person to act, or a
    /// spectator (a computer's turn, the end of the game).
    fn viewer(&self) -> Viewer {
        match self.table.turn() {
            Turn::Seat(s) if is_person(self.table.player(s)) => Viewer::Seat(s),
            _ => Viewer::Spectator,
        }
    }

    /// Takes the observation for the screen, with the events the log has
    /// not told yet (returned, oldest first).
    fn refresh(&mut self) -> Vec<Event> {
        let mut obs = self.table.observe_since(self.viewer(), self.told);
        self.told = self.table.event_count();
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

    /// Whether a computer player is to move now (and can).
    pub fn computer_to_act(&self) -> bool {
        self.stalled.is_none() && self.to_act().is_some_and(|s| self.is_computer(s))
    }

    /// Whether the game has people at all.
    pub fn has_humans(&self) -> bool {
        (0..self.obs.seat_info.len()).any(|s| !self.is_computer(s))
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
    /// engine's sentence).
    fn person_moves(&mut self, seat: usize, action: Action) -> Effect {
        match self.table.act(seat, action) {
            Err(e) => {
                self.error(e.to_string());
                Effect::None
            }
            Ok(()) => self.moved(action),
        }
    }

    /// The computer player to act moves, as the table asks it.
    fn computer_moves(&mut self) -> Effect {
        if self.stalled.is_some() {
            return Effect::None;
        }
        match self.table.step() {
            Ok(Step::Moved { action, .. }) => self.moved(action),
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

    /// After a move the table accepted: the new observation, the log, the
    /// status line.
    fn moved(&mut self, action: Action) -> Effect {
        let events = self.refresh();
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
        let lines: Vec<String> = events.iter().map(|e| self.describe(e)).collect();
        let summary = lines
            .iter()
            .filter(|l| !l.is_empty())
            .cloned()
            .collect::<Vec<_>>()
            .join(" ");
        self.log_lines(lines);
        let rolled = self.obs.view.phase == Phase::Rolled;
        let hint = match (self.to_act(), self.controls) {
            (Some(s), _) if self.is_computer(s) => "",
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
        self.say(format!("{summary}{hint}"), Tone::Info);
        if self.obs.view.winner.is_some() {
            self.mode = Mode::Over;
            return Effect::GameOver;
        }
        Effect::None
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
        let s = a.table().state();
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
            why.starts_with("Keeps One (seat 1) chose the illegal move keep x...."),
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
