//! The game record: rules + seed + every action. It is what save files,
//! replays, network resync and golden tests store, and it replays a game
//! bit for bit.

use crate::action::Action;
use crate::error::IllegalAction;
use crate::rules::{ConfigError, GameConfig};
use crate::state::State;
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
        let mut state = State::new(self.config, self.seed)?;
        for (index, &action) in self.actions.iter().enumerate() {
            state.apply(action).map_err(|reason| ReplayError::Illegal {
                index,
                action,
                reason,
            })?;
        }
        Ok(state)
    }
}
