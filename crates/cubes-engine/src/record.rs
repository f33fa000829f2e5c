//! The game record: settings, number of players, seed and every action.
//! Replaying it rebuilds the game exactly; save files, golden tests and
//! (later) network resynchronisation use it.

use crate::settings::Settings;
use crate::state::{Action, IllegalAction, SetupError, State};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Everything needed to replay a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game's settings.
    pub settings: Settings,
    /// Number of seats.
    pub players: usize,
    /// Seed of the game's generator.
    pub seed: u64,
    /// Actions in the order they were applied.
    pub actions: Vec<Action>,
}

/// Why a record does not replay.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ReplayError {
    /// The game could not be set up.
    #[error("cannot set up the game: {0}")]
    Setup(#[from] SetupError),
    /// An action was refused.
    #[error("action {index} ({action}) was refused: {reason}")]
    Illegal {
        /// Index in `actions`.
        index: usize,
        /// The action.
        action: Action,
        /// The engine's reason.
        reason: IllegalAction,
    },
}

impl GameRecord {
    /// A record of a game not yet played.
    pub fn new(settings: Settings, players: usize, seed: u64) -> GameRecord {
        GameRecord {
            settings,
            players,
            seed,
            actions: Vec::new(),
        }
    }

    /// Replays every action from the seed.
    pub fn replay(&self) -> Result<State, ReplayError> {
        let mut s = State::new(self.settings.clone(), self.players, self.seed)?;
        for (index, &action) in self.actions.iter().enumerate() {
            s.apply(action).map_err(|reason| ReplayError::Illegal {
                index,
                action,
                reason,
            })?;
        }
        Ok(s)
    }
}
