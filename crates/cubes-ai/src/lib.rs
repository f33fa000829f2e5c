//! Computer players for `cubes`.
//!
//! Every player is a [`game_table::Bot`] of [`Cubes`]: given the
//! [`cubes_engine::Observation`] of its seat when it is to act, it returns
//! an [`cubes_engine::Action`] (built-in players always answer).
//! Personalities ([`Personality`]) are simple,
//! readable threshold players; [`OptimalBot`] plays the policy that
//! maximises the probability of winning a two-player game (solved exactly
//! over the [`model::TurnModel`]; see [`solver`]), and for more players the
//! policy that maximises the expected banked points of the turn, switching
//! to the two-player policy against the leader in the end game.
//! [`sim`] plays bots against each other at a [`game_table::Table`];
//! [`review`] judges a finished game's decisions by the optimal player's
//! values.

pub mod model;
pub mod optimal;
pub mod personality;
pub mod review;
pub mod sim;
pub mod solver;
pub mod tables;

pub use optimal::{Brain, OptimalBot};
pub use personality::Personality;

use cubes_engine::Cubes;
use game_table::Bot;

/// A computer player by its short name: `optimal`, `cautious`, `steady`,
/// `bold`, `reckless` (case-insensitive; the first word of a full name
/// works too).
pub fn by_name(name: &str) -> Option<Box<dyn Bot<Cubes>>> {
    let n = name.to_ascii_lowercase();
    let key = n.split_whitespace().next().unwrap_or("");
    match key {
        "optimal" | "olga" => Some(Box::new(OptimalBot::default())),
        _ => Personality::all()
            .into_iter()
            .find(|p| {
                let lower = p.name.to_ascii_lowercase();
                lower.split_whitespace().any(|w| w == key)
            })
            .map(|p| Box::new(p) as Box<dyn Bot<Cubes>>),
    }
}

/// Short names of every computer player, for help texts.
pub const BOT_NAMES: [&str; 5] = ["optimal", "cautious", "steady", "bold", "reckless"];

/// The full names of every computer player ("Steady Sam", ...), which
/// people may not take: the score file tells people and computers apart,
/// but a person called "Steady Sam" would still read as the computer.
pub fn computer_names() -> Vec<String> {
    BOT_NAMES
        .iter()
        .filter_map(|n| by_name(n))
        .map(|b| b.name().to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_short_name_has_a_distinct_full_name() {
        let names = computer_names();
        assert_eq!(names.len(), BOT_NAMES.len());
        assert!(names.contains(&"Steady Sam".to_string()), "{names:?}");
        assert!(names.contains(&"Optimal Olga".to_string()), "{names:?}");
        for (k, n) in names.iter().enumerate() {
            assert!(!names[..k].contains(n), "{n} twice");
        }
    }
}
