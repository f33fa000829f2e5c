//! The game record: rules + seed + every action. It is what save files,
//! replays, network resync and golden tests store, and it replays a game
//! bit for bit.

use crate::action::Action;
use crate::error::IllegalAction;
use crate::rules::{ConfigError, GameConfig};
use crate::state::{Outcome, State, ToAct};
use serde::{Deserialize, Serialize};

/// A whole game as data.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Rules and seats.
    pub config: GameConfig,
    /// Seed of the ChaCha8 stream that shuffles every hand.
    pub seed: u64,
    /// Every action applied, in order.
    pub actions: Vec<Action>,
}

/// Why a record does not replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The configuration is not playable.
    #[error("{0}")]
    Config(#[from] ConfigError),
    /// An action in the log is illegal where it stands.
    #[error("action {index} ({action}) is illegal there: {reason}")]
    Illegal {
        /// Position in the log.
        index: usize,
        /// The action.
        action: Action,
        /// Why.
        reason: IllegalAction,
    },
}

impl GameRecord {
    /// An empty record of a new game.
    pub fn new(config: GameConfig, seed: u64) -> GameRecord {
        GameRecord {
            config,
            seed,
            actions: Vec::new(),
        }
    }

    /// Replays the record from the deal, checking every action.
    pub fn replay(&self) -> Result<State, ReplayError> {
        self.replay_with(|_| {})
    }

    /// Replays the record like [`GameRecord::replay`], showing `visit`
    /// each action once it is applied. Whoever needs more than the final
    /// state (who made each move, for a log; where a hand began, for an
    /// undo) gathers it on the way instead of replaying the game again.
    /// An action that does not apply stops the replay before `visit` sees it.
    pub fn replay_with(&self, mut visit: impl FnMut(ReplayStep<'_>)) -> Result<State, ReplayError> {
        let mut state = State::new(self.config, self.seed)?;
        for (index, &action) in self.actions.iter().enumerate() {
            let actor = state.to_act();
            let outcome = state.apply(action).map_err(|reason| ReplayError::Illegal {
                index,
                action,
                reason,
            })?;
            visit(ReplayStep {
                index,
                actor,
                action,
                outcome,
                state: &state,
            });
        }
        Ok(state)
    }
}

/// One applied action of a replay, as [`GameRecord::replay_with`] shows it.
#[derive(Clone, Copy, Debug)]
pub struct ReplayStep<'a> {
    /// Position of the action in the record.
    pub index: usize,
    /// Who was to act when the action was applied: the seat that made it,
    /// or [`ToAct::Deal`] / [`ToAct::GameOver`] for a deal.
    pub actor: ToAct,
    /// The action.
    pub action: Action,
    /// What it caused.
    pub outcome: Outcome,
    /// The state just after it.
    pub state: &'a State,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::ActionList;

    /// A record of `n` legal actions: always the first legal one.
    fn record_of(n: usize) -> GameRecord {
        let mut record = GameRecord::new(GameConfig::default(), 11);
        let mut state = State::new(record.config, record.seed).expect("config");
        let mut list = ActionList::default();
        for _ in 0..n {
            state.legal_actions(&mut list);
            let a = *list.first().expect("a legal action");
            state.apply(a).expect("legal");
            record.actions.push(a);
        }
        record
    }

    #[test]
    fn replay_with_shows_each_action_with_its_actor() {
        let record = record_of(60);
        let mut seen = Vec::new();
        let mut state = State::new(record.config, record.seed).expect("config");
        let end = record
            .replay_with(|step| {
                assert_eq!(step.actor, state.to_act(), "the actor before the move");
                assert_eq!(state.apply(step.action), Ok(step.outcome));
                assert_eq!(step.state.to_act(), state.to_act());
                seen.push((step.index, step.action));
            })
            .expect("replays");
        let expected: Vec<_> = record.actions.iter().copied().enumerate().collect();
        assert_eq!(seen, expected);
        assert_eq!(
            format!("{end:?}"),
            format!("{:?}", record.replay().expect("replays"))
        );
    }

    #[test]
    fn replay_with_stops_before_an_illegal_action() {
        let mut record = record_of(1);
        record.actions.push(Action::Draw);
        let mut seen = 0;
        let err = record
            .replay_with(|_| seen += 1)
            .expect_err("a second draw");
        assert!(
            matches!(err, ReplayError::Illegal { index: 1, .. }),
            "{err}"
        );
        assert_eq!(seen, 1);
    }
}
