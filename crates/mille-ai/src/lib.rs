//! Computer players. A [`Bot`] decides from a seat's [`View`] only (never
//! from the full state), so the same bots play in the terminal game, behind
//! the bot protocol and on the server.

use mille_engine::view::{Decision, legal_actions_in_view};
use mille_engine::{Action, Phase, State, View, bounded};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use std::fmt;
use std::str::FromStr;

/// A computer player.
pub trait Bot: Send {
    /// A short name for score tables and the protocol's `hello`.
    fn name(&self) -> &str;
    /// Decides from `view`. For [`Decision::Turn`] the answer is a play or a
    /// discard; for a coup fourré `CoupFourre(safety)` or
    /// `DeclineCoupFourre`; for an extension `Extend(bool)`. It must be legal.
    fn decide(&mut self, view: &View, decision: Decision) -> Action;
}

/// The available computer players, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// Plays a random legal card.
    Random,
    /// The BSD computer opponent.
    Classic,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 2] = [Level::Random, Level::Classic];
    /// The id used on command lines.
    pub const fn id(self) -> &'static str {
        match self {
            Level::Random => "random",
            Level::Classic => "classic",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A level name that does not exist.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown level {0:?}: expected one of random, classic")]
pub struct UnknownLevel(pub String);

impl FromStr for Level {
    type Err = UnknownLevel;
    fn from_str(s: &str) -> Result<Level, UnknownLevel> {
        Level::ALL
            .into_iter()
            .find(|l| l.id() == s)
            .ok_or_else(|| UnknownLevel(s.to_string()))
    }
}

/// Builds the bot of a level, seeded so that its games replay.
pub fn make_bot(level: Level, seed: u64) -> Box<dyn Bot> {
    match level {
        // Until the classic bot lands, it is played by the random bot.
        Level::Random | Level::Classic => Box::new(RandomBot::new(seed)),
    }
}

/// Plays a uniformly random legal action; always takes coups fourrés.
#[derive(Clone, Debug)]
pub struct RandomBot {
    rng: ChaCha8Rng,
}

impl RandomBot {
    /// A random bot with its own seeded stream.
    pub fn new(seed: u64) -> RandomBot {
        RandomBot {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Bot for RandomBot {
    fn name(&self) -> &str {
        "random"
    }
    fn decide(&mut self, view: &View, decision: Decision) -> Action {
        match decision {
            Decision::CoupFourre { hazard, .. } => hazard
                .safety()
                .map_or(Action::DeclineCoupFourre, |s| Action::CoupFourre(s.card())),
            Decision::Extension => Action::Extend(bounded(&mut self.rng, 2) == 0),
            Decision::Turn => {
                let actions = legal_actions_in_view(view).unwrap_or_default();
                if actions.is_empty() {
                    // Only an inconsistent view gets here; any discard will do.
                    return view
                        .hand
                        .first()
                        .map_or(Action::Draw, |&c| Action::Discard(c));
                }
                actions[bounded(&mut self.rng, actions.len() as u32) as usize]
            }
        }
    }
}

/// What the seat to act should do next in `state` when it is played by
/// `bot`: draws are automatic, every other decision is the bot's. Returns
/// `None` when no seat is to act (between hands).
pub fn bot_action(bot: &mut dyn Bot, state: &State) -> Option<Action> {
    let (seat, decision) = match state.phase() {
        Phase::Turn { drawn: false, .. } => return Some(Action::Draw),
        Phase::Turn { seat, drawn: true } => (seat, Decision::Turn),
        Phase::CoupFourre {
            seat,
            hazard,
            attacker,
        } => (seat, Decision::CoupFourre { hazard, attacker }),
        Phase::Extension { seat } => (seat, Decision::Extension),
        Phase::HandOver | Phase::GameOver => return None,
    };
    Some(bot.decide(&state.view(seat), decision))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mille_engine::{GameConfig, ToAct};

    #[test]
    fn random_bots_finish_a_game_with_legal_moves() {
        let mut state = State::new(GameConfig::default(), 3).expect("config");
        let mut bots = [RandomBot::new(1), RandomBot::new(2)];
        for _ in 0..100_000 {
            match state.to_act() {
                ToAct::Seat(s) => {
                    let a = bot_action(&mut bots[s as usize], &state).expect("a seat acts");
                    state.apply(a).expect("bot moves are legal");
                }
                ToAct::Deal => {
                    state.apply(Action::NextHand).expect("deal");
                }
                ToAct::GameOver => return,
            }
        }
        panic!("game did not end");
    }
}
