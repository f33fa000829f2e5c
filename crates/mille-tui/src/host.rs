//! The host of the terminal game: it owns the game's [`Table`] (the
//! engine's state, the seats, the action log), carries out the effects
//! that touch the game ([`Effect::Act`], [`Effect::Deal`], [`Effect::Think`],
//! [`Effect::Undo`]) and answers each with the player's new
//! [`Observation`]. The screen (model, render, update) only ever holds
//! that observation, so the same screen can draw a game whose table runs
//! elsewhere.
//!
//! Computer players are [`SeededBot`]s: every decision is made by a fresh
//! bot of the level, seeded from the game seed and the table's sequence
//! number and shown the moves of the hand so far, so that an undone or
//! restored game goes on exactly as it would have.

use crate::model::{HUMAN, seat_name};
use crate::update::{Effect, Event};
use game_table::{Bot, BotError, Player, SeatInfo, Step, Table, TableError, Turn, Viewer};
use mille_ai::{Level, make_bot};
use mille_engine::{Action, GameRecord, Mille, Observation, ReplayError, State, ToAct};
use mille_store::{SaveFile, SaveSettings};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The seed of the computer's decision at sequence number `seq` of the
/// game dealt from `seed`.
pub fn bot_seed(seed: u64, seq: u64) -> u64 {
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(seq)
        .rotate_left(17)
}

/// A computer seat: a fresh bot of `level` for each decision, seeded by
/// [`bot_seed`] from the game seed and the table's sequence number (which
/// the host shares through a counter), shown first the moves it watched
/// since its hand was dealt. Its moves thus depend on the game record
/// alone, whichever way the table got there (played, undone, restored).
pub struct SeededBot {
    level: Level,
    seed: u64,
    seq: Arc<AtomicU64>,
    /// Whether the level's bots read the play (else nothing is kept).
    keeps: bool,
    /// The moves watched since the last deal of a hand (what a bot kept
    /// alive through the hand would have seen).
    watched: Vec<(Observation, Option<usize>, Action)>,
}

impl SeededBot {
    /// A seat of `level` in the game dealt from `seed`; `seq` is the
    /// table's sequence number, kept up to date by the host.
    pub fn new(level: Level, seed: u64, seq: Arc<AtomicU64>) -> SeededBot {
        SeededBot {
            level,
            seed,
            seq,
            keeps: make_bot(level, 0).watches(),
            watched: Vec::new(),
        }
    }
}

impl Bot<Mille> for SeededBot {
    fn name(&self) -> &str {
        self.level.id()
    }

    fn decide(&mut self, observation: &Observation) -> Result<Action, BotError> {
        let seq = self.seq.load(Ordering::SeqCst);
        let mut bot = make_bot(self.level, bot_seed(self.seed, seq));
        for (before, actor, action) in &self.watched {
            bot.watch(before, *actor, *action);
        }
        bot.decide(observation)
    }

    fn watches(&self) -> bool {
        self.keeps
    }

    fn watch(&mut self, before: &Observation, actor: Option<usize>, action: Action) {
        // Only a new hand starts afresh: a new game's first hand is dealt
        // by `NextGame`, and its bots remember the last hand of the game
        // before, as they always have.
        if action == Action::NextHand {
            self.watched.clear();
        }
        self.watched.push((before.clone(), actor, action));
    }
}

/// The game's table and what it needs to rebuild it (undo, a bot taken
/// over).
pub struct Host {
    table: Table<Mille>,
    /// The state the game started from: the deal of the record's seed, or
    /// a position built by hand.
    start: State,
    seed: u64,
    /// Each seat's computer level (`None`: the person).
    levels: Vec<Option<Level>>,
    /// The table's sequence number, shared with the computer seats.
    seq: Arc<AtomicU64>,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("table", &self.table)
            .field("seed", &self.seed)
            .field("levels", &self.levels)
            .finish_non_exhaustive()
    }
}

impl Host {
    /// The game `record` holds, replayed through a table where the player
    /// sits in seat 0 and computers of `level` in the others.
    pub fn new(record: &GameRecord, level: Level) -> Result<Host, ReplayError> {
        let start = State::new(record.config, record.seed)?;
        let mut host = Host::at(start, record.seed, level);
        Host::replay(&mut host.table, &record.actions)?;
        Ok(host)
    }

    /// A table at `state` (a position built by hand), whose computers are
    /// seeded from `seed`.
    pub fn at(state: State, seed: u64, level: Level) -> Host {
        let seats = usize::from(state.rules().seats);
        let levels: Vec<Option<Level>> = (0..seats)
            .map(|s| (s != usize::from(HUMAN)).then_some(level))
            .collect();
        let seq = Arc::new(AtomicU64::new(0));
        Host {
            table: Host::table_at(&state, &levels, seed, &seq),
            start: state,
            seed,
            levels,
            seq,
        }
    }

    /// A table at the game's start.
    fn fresh_table(&self) -> Table<Mille> {
        Host::table_at(&self.start, &self.levels, self.seed, &self.seq)
    }

    /// A table at `start`: the person in the seat without a level, a
    /// [`SeededBot`] of its level in each other one.
    fn table_at(
        start: &State,
        levels: &[Option<Level>],
        seed: u64,
        seq: &Arc<AtomicU64>,
    ) -> Table<Mille> {
        let rules = *start.rules();
        let seats = levels
            .iter()
            .enumerate()
            .map(|(s, level)| {
                let name = seat_name(&rules, u8::try_from(s).unwrap_or(u8::MAX));
                match level {
                    None => (SeatInfo::human(name), Player::Person),
                    Some(l) => {
                        let bot = SeededBot::new(*l, seed, Arc::clone(seq));
                        (SeatInfo::computer(name, l.id()), Player::Bot(Box::new(bot)))
                    }
                }
            })
            .collect();
        Table::new(start.clone(), seats)
    }

    /// `actions` played in order at `table`, each by whoever is to act.
    fn replay(table: &mut Table<Mille>, actions: &[Action]) -> Result<(), ReplayError> {
        for (index, &action) in actions.iter().enumerate() {
            table.replay(action).map_err(|e| ReplayError::Illegal {
                index,
                action,
                reason: match e {
                    TableError::Illegal { reason, .. } => reason,
                    // `replay` refuses only what the engine refuses.
                    _ => mille_engine::IllegalAction::HandInProgress,
                },
            })?;
        }
        Ok(())
    }

    /// A new table at the start, playing `actions` again; the table in
    /// play is replaced only once that succeeded.
    fn rebuild(&mut self, actions: &[Action]) -> Result<(), ReplayError> {
        let mut table = self.fresh_table();
        Host::replay(&mut table, actions)?;
        self.table = table;
        Ok(())
    }

    /// The player's observation, with the events not shown yet.
    pub fn observe(&mut self) -> Observation {
        self.table.observe(Viewer::Seat(usize::from(HUMAN)))
    }

    /// The game's full state: for host-side checks (tests), never for the
    /// screen.
    pub fn state(&self) -> &State {
        self.table.state()
    }

    /// The game record: the rules, the seed and the table's action log.
    pub fn record(&self) -> GameRecord {
        GameRecord {
            config: self.start.rules().config,
            seed: self.seed,
            actions: self.table.log().to_vec(),
        }
    }

    /// The save document of the game as it stands.
    pub fn save_file(&self, settings: SaveSettings) -> SaveFile {
        SaveFile::new(self.record(), settings)
    }

    /// Seats `bot` in `seat` instead of its level's (a test of how a bad
    /// computer player is handled).
    pub fn seat_bot(&mut self, seat: usize, bot: Box<dyn Bot<Mille>>) {
        let info = SeatInfo::computer(bot.name().to_string(), bot.name().to_string());
        let _ = self.table.seat(seat, info, Player::Bot(bot));
    }

    /// Carries out a game effect (a move, a deal, a computer's turn, an
    /// undo): the event that reports it, if any. A computer's turn is only
    /// played for the model's current `generation`.
    pub fn carry_out(&mut self, effect: &Effect, generation: u64) -> Option<Event> {
        match *effect {
            Effect::Act(action) => Some(self.act(action)),
            Effect::Deal(action) => Some(self.deal(action)),
            Effect::Think { generation: g } if g == generation => self.step(),
            Effect::Undo => Some(self.undo()),
            _ => None,
        }
    }

    /// The player's move.
    pub fn act(&mut self, action: Action) -> Event {
        let result = self
            .table
            .act(usize::from(HUMAN), action)
            .map(|()| Box::new(self.observe()))
            .map_err(|e| e.to_string());
        Event::Acted { action, result }
    }

    /// The next hand or game, dealt on the player's say-so.
    pub fn deal(&mut self, action: Action) -> Event {
        let result = self
            .table
            .host_act(action)
            .map(|()| Box::new(self.observe()))
            .map_err(|e| e.to_string());
        Event::Acted { action, result }
    }

    /// The computer's turn, if a computer is to act: its move, or, when it
    /// chose an illegal move or failed, the seat taken over by the classic
    /// level (and the game rebuilt with it).
    pub fn step(&mut self) -> Option<Event> {
        self.seq.store(self.table.seq(), Ordering::SeqCst);
        let (seat, problem) = match self.table.step() {
            Ok(Step::Moved { seat, action }) => {
                return Some(Event::BotMoved {
                    seat: u8::try_from(seat).unwrap_or(u8::MAX),
                    action,
                    observation: Box::new(self.observe()),
                });
            }
            Ok(_) => return None,
            Err(e @ TableError::BotIllegal { seat, .. }) => {
                let why = match &e {
                    TableError::BotIllegal { action, reason, .. } => format!("{action}: {reason}"),
                    _ => e.to_string(),
                };
                (
                    seat,
                    (e.to_string(), format!("made an illegal move ({why})")),
                )
            }
            Err(e @ TableError::BotFailed { seat, .. }) => {
                let why = match &e {
                    TableError::BotFailed { error, .. } => format!("failed ({error})"),
                    _ => e.to_string(),
                };
                (seat, (e.to_string(), why))
            }
            Err(e) => {
                let seat = match self.table.turn() {
                    Turn::Seat(s) => s,
                    _ => return None,
                };
                (seat, (e.to_string(), format!("failed ({e})")))
            }
        };
        if let Some(level) = self.levels.get_mut(seat) {
            *level = Some(Level::Classic);
        }
        let actions = self.table.log().to_vec();
        let (log, what) = problem;
        // The same moves again: they replayed before.
        let _ = self.rebuild(&actions);
        Some(Event::BotReplaced {
            seat: u8::try_from(seat).unwrap_or(u8::MAX),
            what,
            log,
            observation: Box::new(self.observe()),
        })
    }

    /// Takes back the player's last move of this hand and the computer's
    /// replies (see [`undo_point`]).
    pub fn undo(&mut self) -> Event {
        let result = undo_point(&self.start, self.table.log()).and_then(|cut| {
            let mut actions = self.table.log().to_vec();
            actions.truncate(cut);
            // The shortened game replays: it is the start of one that did.
            self.rebuild(&actions)
                .map_err(|_| NoUndo::NothingThisHand)?;
            Ok(Box::new(self.observe()))
        });
        Event::Undone(result)
    }
}

/// Why there is nothing to undo.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoUndo {
    /// The player has made no move in this hand.
    #[error("Nothing to undo in this hand")]
    NothingThisHand,
    /// The player's moves of this hand all came before the extension
    /// question was answered.
    #[error("The answer to the extension question is final: nothing to undo since")]
    ExtensionAnswered,
    /// The game is played at a table server, where a move once made is
    /// everybody's.
    #[error("No undo at a shared table: a move made there is made for everyone")]
    SharedTable,
}

/// Where to cut the log of a game that started at `start` to take back
/// the player's last move against the computer (Mile Bones' undo): the
/// last play, discard or coup fourré decision of the current hand, with
/// everything after it (the computer's replies); the draw before it stays,
/// since it is the same card again.
///
/// Undo never reaches back past the start of the hand or past an answer
/// to the extension question (whoever gave it): moves follow that answer
/// and the player sees them, so taking it back would let them answer again
/// knowing what comes.
pub fn undo_point(start: &State, actions: &[Action]) -> Result<usize, NoUndo> {
    let mut state = start.clone();
    let mut floor = 0;
    let mut extension_floor = false;
    let mut last = None;
    for (index, &action) in actions.iter().enumerate() {
        let actor = state.to_act();
        if state.apply(action).is_err() {
            return Err(NoUndo::NothingThisHand);
        }
        match action {
            Action::NextHand | Action::NextGame => {
                floor = index + 1;
                extension_floor = false;
            }
            Action::Extend(_) => {
                floor = index + 1;
                extension_floor = true;
            }
            Action::Draw => {}
            _ if matches!(actor, ToAct::Seat(s) if s.number() == HUMAN) => last = Some(index),
            _ => {}
        }
    }
    match last {
        Some(i) if i >= floor => Ok(i),
        _ if extension_floor => Err(NoUndo::ExtensionAnswered),
        _ => Err(NoUndo::NothingThisHand),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mille_ai::{bot_action, watch_current_hand};
    use mille_engine::GameConfig;

    /// The computer's move as the game made it before it had a table: a
    /// fresh bot seeded from the record's length, shown the hand so far by
    /// replaying the record.
    fn by_replay(state: &State, record: &GameRecord, level: Level) -> Option<Action> {
        let mut bot = make_bot(level, bot_seed(record.seed, record.actions.len() as u64));
        if let ToAct::Seat(seat) = state.to_act() {
            watch_current_hand(bot.as_mut(), seat, record).expect("replays");
        }
        bot_action(bot.as_mut(), state).and_then(Result::ok)
    }

    #[test]
    fn seated_bots_play_as_a_fresh_bot_shown_the_hand_by_replay() {
        let configs = [
            GameConfig::default(),
            GameConfig {
                rules: mille_engine::RulesetId::Classic,
                players: 3,
                stacking: false,
            },
        ];
        for config in configs {
            for seed in 0..3 {
                for level in [Level::Classic, Level::Random] {
                    let record = GameRecord::new(config, seed);
                    let mut host = Host::new(&record, level).expect("a game");
                    // The player's seat is played by the classic bot.
                    let mut me = make_bot(Level::Classic, seed);
                    for _ in 0..600 {
                        match host.table.turn() {
                            Turn::Over => break,
                            Turn::Host => {
                                let _ = host.deal(Action::NextHand);
                            }
                            Turn::Seat(0) => {
                                let obs = host.observe();
                                let a = me.decide(&obs).expect("a move");
                                assert!(matches!(host.act(a), Event::Acted { result: Ok(_), .. }));
                            }
                            Turn::Seat(_) => {
                                let expected =
                                    by_replay(host.state(), &host.record(), level).expect("a move");
                                match host.step() {
                                    Some(Event::BotMoved { action, .. }) => {
                                        assert_eq!(action, expected, "{config:?} seed {seed}");
                                    }
                                    other => panic!("no computer move: {other:?}"),
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Always discards the first card of its hand, or draws: sooner or
    /// later an illegal move.
    struct Stubborn;

    impl Bot<Mille> for Stubborn {
        fn name(&self) -> &str {
            "stubborn"
        }
        fn decide(&mut self, observation: &Observation) -> Result<Action, BotError> {
            Ok(match observation.status {
                mille_engine::PhaseView::Turn { drawn: true, .. } => Action::Play {
                    card: mille_engine::Card::D200,
                    team: 1,
                },
                _ => Action::Draw,
            })
        }
    }

    #[test]
    fn an_illegal_computer_move_hands_the_seat_to_the_classic_level() {
        let mut host =
            Host::new(&GameRecord::new(GameConfig::default(), 4), Level::Random).expect("a game");
        host.seat_bot(1, Box::new(Stubborn));
        let mut me = make_bot(Level::Classic, 1);
        let mut replaced = None;
        for _ in 0..200 {
            match host.table.turn() {
                Turn::Seat(0) => {
                    let a = me.decide(&host.observe()).expect("a move");
                    let _ = host.act(a);
                }
                Turn::Seat(_) => match host.step() {
                    Some(Event::BotReplaced { seat, what, .. }) => {
                        replaced = Some((seat, what));
                        break;
                    }
                    Some(Event::BotMoved { .. }) => {}
                    other => panic!("{other:?}"),
                },
                _ => break,
            }
        }
        let (seat, what) = replaced.expect("the stubborn bot erred");
        assert_eq!(seat, 1);
        assert!(
            what.starts_with("made an illegal move (play 200 1: "),
            "{what}"
        );
        assert_eq!(host.levels[1], Some(Level::Classic));
        assert!(matches!(
            host.table.player(1),
            Some(Player::Bot(b)) if b.name() == "classic"
        ));
        // The game goes on with the classic level in that seat.
        assert!(matches!(host.step(), Some(Event::BotMoved { seat: 1, .. })));
    }
}
