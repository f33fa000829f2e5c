//! Game settings as data: the Standard and Blitz games, Jokers, and the
//! board thresholds of the man page.

use serde::{Deserialize, Serialize};

/// Whether a game is played with the 13-sided Jokers dice.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum JokerRule {
    /// Ordinary six-sided dice.
    Never,
    /// Jokers dice for this game.
    Always,
    /// As the original configured for Jokers: about one game in six uses
    /// Jokers dice, drawn from the game's seed and announced at the start.
    OneGameInSix,
}

/// The numbers that make a kind of game.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Settings {
    /// Name shown on screen ("Standard", "Blitz").
    pub name: String,
    /// Points to reach: 10,000 Standard, 7,500 Blitz.
    pub target: u32,
    /// Points needed in the first banked turn ("getting on board").
    pub on_board: u32,
    /// Points needed in the turn that crosses the target ("getting off
    /// board").
    pub off_board: u32,
    /// Lead over second place the winner needs ("overtime").
    pub overtime_lead: u32,
    /// Jokers dice or not.
    pub jokers: JokerRule,
}

impl Settings {
    /// The Standard game: 10,000 points, ordinary dice.
    pub fn standard() -> Settings {
        Settings {
            name: "Standard".into(),
            target: 10_000,
            on_board: 500,
            off_board: 500,
            overtime_lead: 250,
            jokers: JokerRule::Never,
        }
    }

    /// The Blitz game: 7,500 points, ordinary dice.
    pub fn blitz() -> Settings {
        Settings {
            name: "Blitz".into(),
            target: 7_500,
            ..Settings::standard()
        }
    }

    /// The same settings with another Jokers rule.
    pub fn with_jokers(self, jokers: JokerRule) -> Settings {
        Settings { jokers, ..self }
    }
}

impl Default for Settings {
    fn default() -> Settings {
        Settings::standard()
    }
}
