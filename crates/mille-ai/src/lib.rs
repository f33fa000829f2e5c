//! Computer players. Each is a [`Bot`] of the table layer: it decides from
//! a seat's [`Observation`] (never from the full state) and may remember
//! the moves it has watched ([`Bot::watch`]: what every player at the
//! table sees), so the same bots play at any [`game_table::Table`]: the
//! terminal game, matches, behind the bot protocol and on the server.
//! Their reasoning reads the observation's [`View`] (the protocol's).
//!
//! - [`RandomBot`]: the random opponent of the classic bot's calibration.
//! - [`ClassicBot`]: the BSD `mille` computer player (`classic-bot.md`).
//! - [`SearchBot`]: information-set Monte Carlo tree search over
//!   determinizations, playing hands out with the classic bot and ordering
//!   its tree's moves by the fast [`policy`] heuristic, with beliefs about
//!   the other hands inferred from their play ([`inference`]); the levels
//!   `easy` and `normal` are its budgets.

pub mod classic;
pub mod inference;
pub mod knowledge;
pub mod policy;
pub mod random;
pub mod search;

pub use classic::ClassicBot;
pub use random::RandomBot;
pub use search::{Budget, SearchBot};

pub use game_table::Bot;

use game_table::{BotError, Viewer};
use mille_engine::view::{Decision, legal_actions_in_view};
use mille_engine::{
    Action, GameRecord, Mille, Observation, ReplayError, Seat, State, ToAct, View, seen_by,
};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A Mille Bornes computer player.
pub type MilleBot = dyn Bot<Mille>;

/// Makes a bot whose reasoning reads views (its inherent `choose` and
/// `watch_view`) a [`Bot`] of the table: a draw is automatic, every other
/// decision is the bot's; a deal by the host counts as seat 0's action.
macro_rules! view_bot {
    ($bot:ty) => {
        $crate::view_bot!($bot, {});
    };
    ($bot:ty, watching) => {
        $crate::view_bot!($bot, {
            fn watches(&self) -> bool {
                true
            }
            fn watch(
                &mut self,
                before: &mille_engine::Observation,
                actor: Option<usize>,
                action: mille_engine::Action,
            ) {
                let actor = actor.and_then(|a| u8::try_from(a).ok()).unwrap_or(0);
                self.watch_view(&before.view, actor, action);
            }
        });
    };
    ($bot:ty, { $($watching:tt)* }) => {
        impl game_table::Bot<mille_engine::Mille> for $bot {
            fn name(&self) -> &str {
                self.label()
            }
            fn decide(
                &mut self,
                observation: &mille_engine::Observation,
            ) -> Result<mille_engine::Action, game_table::BotError> {
                Ok(match observation.decision() {
                    Some(decision) => self.choose(&observation.view, decision),
                    None => mille_engine::Action::Draw,
                })
            }
            $($watching)*
        }
    };
}
pub(crate) use view_bot;

/// The available computer players, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// Plays a random legal card (the classic bot's calibration opponent).
    Random,
    /// The BSD computer opponent.
    Classic,
    /// A small search: quick, beatable.
    Easy,
    /// Search within a quarter of a second a decision: the strongest.
    Normal,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 4] = [Level::Random, Level::Classic, Level::Easy, Level::Normal];
    /// A level name no longer offered, and the level it now means: `hard`
    /// (the search with ten times `normal`'s time) was not measurably
    /// stronger than `normal`, so it was merged into it; saved games,
    /// tables and command lines that name it still work.
    pub const MERGED: [(&'static str, Level); 1] = [("hard", Level::Normal)];
    /// The id used on command lines.
    pub const fn id(self) -> &'static str {
        match self {
            Level::Random => "random",
            Level::Classic => "classic",
            Level::Easy => "easy",
            Level::Normal => "normal",
        }
    }

    /// The search budget of a search level (`None` for random and classic).
    ///
    /// Budgets are counted in iterations, so that a seeded match with the
    /// caps off replays exactly whatever the machine's load; the time cap
    /// keeps the player's wait bounded. It is set above what the
    /// iterations take on 2 cores (`normal`: median 100 ms, longest
    /// about 230 ms), so that a level plays there as it was measured with
    /// the caps off; a slower machine stops more decisions early.
    pub fn budget(self) -> Option<Budget> {
        let b = |iterations, trees, ms| Budget {
            iterations,
            trees,
            time_limit: Some(Duration::from_millis(ms)),
        };
        match self {
            Level::Random | Level::Classic => None,
            Level::Easy => Some(b(110, 1, 50)),
            Level::Normal => Some(b(14_000, 2, 250)),
        }
    }

    /// [`Level::budget`] without its time cap, so that the level's moves
    /// replay exactly whatever the machine's load (`mille match --exact`,
    /// benchmarks, tuning harnesses).
    pub fn uncapped_budget(self) -> Option<Budget> {
        self.budget().map(|budget| Budget {
            time_limit: None,
            ..budget
        })
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A level name that does not exist.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown level {0:?}: expected one of random, classic, easy, normal")]
pub struct UnknownLevel(pub String);

impl FromStr for Level {
    type Err = UnknownLevel;
    fn from_str(s: &str) -> Result<Level, UnknownLevel> {
        Level::ALL
            .into_iter()
            .find(|l| l.id() == s)
            .or_else(|| {
                Level::MERGED
                    .iter()
                    .find(|(id, _)| *id == s)
                    .map(|&(_, l)| l)
            })
            .ok_or_else(|| UnknownLevel(s.to_string()))
    }
}

/// Builds the bot of a level, seeded so that its games replay.
pub fn make_bot(level: Level, seed: u64) -> Box<MilleBot> {
    match level {
        Level::Random => Box::new(RandomBot::new(seed)),
        Level::Classic => Box::new(ClassicBot::new(seed)),
        Level::Easy | Level::Normal => {
            let budget = level.budget().unwrap_or_default();
            Box::new(SearchBot::new(level.id(), budget, seed))
        }
    }
}

/// A bot whose decisions are timed: only its own thinking, not the
/// table's work around it nor the other bots' watching (what match
/// reports and tuning harnesses measure). Draws, which are automatic, are
/// not counted.
pub struct Timed {
    bot: Box<MilleBot>,
    times: std::sync::Arc<std::sync::Mutex<Vec<Duration>>>,
}

impl Timed {
    /// `bot`, timed; the times go to the list `times` shares.
    pub fn new(bot: Box<MilleBot>) -> (Timed, std::sync::Arc<std::sync::Mutex<Vec<Duration>>>) {
        let times = std::sync::Arc::default();
        (
            Timed {
                bot,
                times: std::sync::Arc::clone(&times),
            },
            times,
        )
    }
}

impl Bot<Mille> for Timed {
    fn name(&self) -> &str {
        self.bot.name()
    }
    fn decide(&mut self, observation: &Observation) -> Result<Action, BotError> {
        let start = std::time::Instant::now();
        let answer = self.bot.decide(observation);
        if !matches!(answer, Ok(Action::Draw))
            && let Ok(mut times) = self.times.lock()
        {
            times.push(start.elapsed());
        }
        answer
    }
    fn watches(&self) -> bool {
        self.bot.watches()
    }
    fn watch(&mut self, before: &Observation, actor: Option<usize>, action: Action) {
        self.bot.watch(before, actor, action);
    }
}

/// The observation `seat` has of `state`, without events or seat names:
/// what a bot driven outside a table (tests, benchmarks, tuning harnesses)
/// decides from.
pub fn observation(state: &State, seat: Seat) -> Observation {
    state.observe(Viewer::Seat(usize::from(seat)), &[], Vec::new())
}

/// What the seat to act should do next in `state` when it is played by
/// `bot`: draws are automatic, every other decision is the bot's. Returns
/// `None` when no seat is to act (between hands), and the bot's error if
/// it fails.
pub fn bot_action(bot: &mut MilleBot, state: &State) -> Option<Result<Action, BotError>> {
    match state.to_act() {
        ToAct::Seat(seat) => Some(bot.decide(&observation(state, seat))),
        ToAct::Deal | ToAct::GameOver => None,
    }
}

/// Shows `bot`, which plays `seat`, every move of the current hand of the
/// game `record` holds, as a table would have shown them live, and
/// returns the state reached. A program that makes a fresh bot for each
/// decision (so that an undone or restored game goes on exactly as it
/// would have) thus gives it what a bot kept alive would know.
pub fn watch_current_hand(
    bot: &mut MilleBot,
    seat: Seat,
    record: &GameRecord,
) -> Result<State, ReplayError> {
    let start = record
        .actions
        .iter()
        .rposition(|&a| a == Action::NextHand)
        .unwrap_or(0);
    let mut state = State::new(record.config, record.seed)?;
    for (index, &action) in record.actions.iter().enumerate() {
        let actor = match state.to_act() {
            ToAct::Seat(s) => s.number(),
            ToAct::Deal | ToAct::GameOver => 0,
        };
        if index >= start && seen_by(seat.number(), actor, action) {
            bot.watch(&observation(&state, seat), Some(usize::from(actor)), action);
        }
        state.apply(action).map_err(|reason| ReplayError::Illegal {
            index,
            action,
            reason,
        })?;
    }
    Ok(state)
}

/// A legal answer to `decision` when a bot has nothing better: the first
/// legal action of a turn (a discard of the first card if the view is too
/// inconsistent to list any), a coup fourré taken, no extension.
pub fn fallback_action(view: &View, decision: Decision) -> Action {
    match decision {
        Decision::CoupFourre { hazard, .. } => coup_fourre_if_held(&view.hand, hazard),
        Decision::Extension => Action::Extend(false),
        Decision::Turn => legal_actions_in_view(view)
            .ok()
            .and_then(|a| a.first().copied())
            .or_else(|| view.hand.first().map(|&c| Action::Discard(c)))
            .unwrap_or(Action::Draw),
    }
}

/// Calls coup fourré on `hazard` when `hand` holds its safety.
pub fn coup_fourre_if_held(hand: &[mille_engine::Card], hazard: mille_engine::Card) -> Action {
    match hazard.safety().map(|s| s.card()) {
        Some(s) if hand.contains(&s) => Action::CoupFourre(s),
        _ => Action::DeclineCoupFourre,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mille_engine::{Card, GameConfig};

    #[test]
    fn level_names_read_back_and_merged_names_still_read() {
        for l in Level::ALL {
            assert_eq!(l.id().parse::<Level>(), Ok(l));
        }
        assert_eq!("hard".parse::<Level>(), Ok(Level::Normal));
        assert!("expert".parse::<Level>().is_err());
    }

    #[test]
    fn random_bots_finish_a_game_with_legal_moves() {
        use game_table::{Player, SeatInfo, Step, Table};
        let state = State::new(GameConfig::default(), 3).expect("config");
        let seats = (1..=2)
            .map(|seed| {
                let bot: Box<MilleBot> = Box::new(RandomBot::new(seed));
                (SeatInfo::computer("random", "random"), Player::Bot(bot))
            })
            .collect();
        let mut table = Table::<Mille>::new(state, seats);
        for _ in 0..1000 {
            match table.run_bots().expect("bot moves are legal") {
                Step::Host => table.host_act(Action::NextHand).expect("deal"),
                Step::Over => return,
                other => panic!("only bots play: {other:?}"),
            }
        }
        panic!("game did not end");
    }

    /// A bot made fresh for a decision and shown the hand so far reaches
    /// the game's state; a record that does not replay is reported.
    #[test]
    fn watching_the_hand_replays_the_record() {
        let mut record = GameRecord::new(GameConfig::default(), 4);
        let mut state = State::new(record.config, record.seed).expect("config");
        let mut bots = [ClassicBot::new(1), ClassicBot::new(2)];
        for _ in 0..300 {
            let a = match state.to_act() {
                ToAct::Seat(s) => bot_action(&mut bots[s.index()], &state)
                    .expect("acts")
                    .expect("answers"),
                ToAct::Deal => Action::NextHand,
                ToAct::GameOver => break,
            };
            state.apply(a).expect("legal");
            record.actions.push(a);
        }
        let mut bot = make_bot(Level::Normal, 1);
        let seat = |n| state.rules().seat(n).expect("a seat");
        let watched = watch_current_hand(bot.as_mut(), seat(0), &record).expect("replays");
        assert_eq!(watched.view(seat(0)), state.view(seat(0)));
        assert_eq!(watched.view(seat(1)), state.view(seat(1)));
        record.actions.push(Action::NextGame);
        let err = watch_current_hand(bot.as_mut(), seat(0), &record).expect_err("illegal");
        assert!(
            matches!(err, ReplayError::Illegal { index: 300, .. }),
            "{err}"
        );
    }

    /// A view claiming absurd numbers of cards (as a broken or hostile
    /// protocol peer may send) gets an answer from every level, no panic.
    #[test]
    fn every_level_answers_an_absurd_view() {
        let state = State::new(GameConfig::default(), 3).expect("config");
        let mut view = state.view(state.rules().seat(0).expect("seat 0"));
        view.teams[1].distance = vec![Card::D25; 300];
        // As many discards as the deck holds: more and the view is refused
        // before any card is counted.
        view.discards = vec![Card::D25; mille_engine::rules::MAX_DECK_CARDS];
        for level in Level::ALL {
            let mut bot = make_bot(level, 1);
            let asked = Observation::from_view(view.clone(), Decision::Turn, Vec::new());
            assert!(bot.decide(&asked).is_ok(), "{level}");
        }
    }

    #[test]
    fn levels_round_trip() {
        for l in Level::ALL {
            assert_eq!(l.id().parse::<Level>(), Ok(l));
            assert_eq!(l.to_string(), l.id());
        }
        assert!("expert".parse::<Level>().is_err());
    }
}
