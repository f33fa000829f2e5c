//! Personalities: simple, readable computer players that differ in how much
//! they risk. Each one picks which dice to keep by weighing points against
//! dice left to roll, and holds once the turn is worth its threshold for the
//! number of dice it would roll next. Every personality holds when holding
//! wins the game.

use cubes_engine::{Action, Cubes, DieState, Keep, Observation, Phase, View};
use game_table::{Bot, BotError};

/// A threshold player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Personality {
    /// Name shown at the table.
    pub name: &'static str,
    /// One line about its style.
    pub style: &'static str,
    /// Points a die left to roll is worth when choosing what to keep (0 =
    /// always keep the most points).
    pub die_value: u32,
    /// Hold when the turn is worth at least this, indexed by the number of
    /// dice the next roll would use minus one (1 to 5 dice).
    pub hold_at: [u32; 5],
}

impl Personality {
    /// Holds early and keeps the most points of every roll: rarely loses a
    /// big turn, rarely makes one.
    pub fn cautious() -> Personality {
        Personality {
            name: "Cautious Carla",
            style: "banks small turns early and keeps every die that earns points; \
                    a lone Joker (0 points) goes back into the roll",
            die_value: 0,
            hold_at: [150, 250, 300, 400, 1000],
        }
    }

    /// A sensible middle: the usual rules of thumb of dice players.
    pub fn steady() -> Personality {
        Personality {
            name: "Steady Sam",
            style: "holds at 300 with two dice or fewer, 500 with three, rolls four or five",
            die_value: 40,
            hold_at: [300, 300, 500, 1000, 2500],
        }
    }

    /// Presses on for big turns.
    pub fn bold() -> Personality {
        Personality {
            name: "Bold Bella",
            style: "sets aside only what it must and pushes for big turns",
            die_value: 90,
            hold_at: [500, 600, 1000, 2000, 4000],
        }
    }

    /// Almost never stops.
    pub fn reckless() -> Personality {
        Personality {
            name: "Reckless Rex",
            style: "rolls until the turn is huge or only one die is left",
            die_value: 150,
            hold_at: [600, 1500, 2500, 4000, 8000],
        }
    }

    /// Every personality.
    pub fn all() -> Vec<Personality> {
        vec![
            Personality::cautious(),
            Personality::steady(),
            Personality::bold(),
            Personality::reckless(),
        ]
    }

    fn dice_next(view: &View, keep: &Keep) -> usize {
        let rolled = view.turn.mask(DieState::Rolled).len();
        match rolled - keep.mask.len() {
            0 => 5,
            n => n,
        }
    }
}

/// Whether holding now wins the game outright (for any player).
pub fn hold_wins(view: &View) -> bool {
    let Ok(total) = view.can_hold() else {
        return false;
    };
    let me = view.current;
    let score = view.players[me].score + total;
    let second = view
        .players
        .iter()
        .enumerate()
        .filter(|&(s, _)| s != me)
        .map(|(_, p)| p.score)
        .max()
        .unwrap_or(0);
    score >= view.settings.target
        && (view.players.len() == 1 || score >= second + view.settings.overtime_lead)
}

impl Bot<Cubes> for Personality {
    fn name(&self) -> &str {
        self.name
    }

    fn decide(&mut self, observation: &Observation) -> Result<Action, BotError> {
        Ok(self.act(&observation.view))
    }
}

impl Personality {
    /// The action this personality takes for the seat to act in `view`.
    pub fn act(&self, view: &View) -> Action {
        if view.phase != Phase::Rolled {
            return Action::Roll;
        }
        if hold_wins(view) {
            return Action::Hold;
        }
        let keeps = view.turn.keeps();
        let Some(keep) = keeps.iter().max_by_key(|k| {
            let dice = Personality::dice_next(view, k) as i64;
            (
                k.gain() + i64::from(self.die_value) * dice,
                -(k.mask.len() as i64),
            )
        }) else {
            return Action::Roll; // unreachable: a shown roll always scores
        };
        let dice = Personality::dice_next(view, keep);
        if let Ok(total) = view.can_hold()
            && total >= self.hold_at[dice - 1]
        {
            return Action::Hold;
        }
        Action::Keep(keep.mask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cubes_engine::Face::{Five, Joker, One, Six, Three, Two};
    use cubes_engine::{DiceMask, Face, PlayerScore, Settings, Turn};

    /// A Jokers game's first roll of `dice`, for one player not on board.
    fn rolled(dice: [Face; 5]) -> View {
        View {
            seat: 0,
            settings: Settings::standard(),
            jokers: true,
            players: vec![PlayerScore::default(), PlayerScore::default()],
            current: 0,
            turn: Turn {
                dice,
                states: [DieState::Rolled; 5],
                points: 0,
                held_points: 0,
                rolls: 1,
            },
            phase: Phase::Rolled,
            winner: None,
        }
    }

    #[test]
    fn cautious_carla_does_what_her_style_says_with_a_lone_joker() {
        let carla = Personality::cautious();
        // Every die that earns points is kept...
        assert_eq!(
            carla.act(&rolled([One, Five, Two, Three, Six])),
            Action::Keep(DiceMask::of(&[0, 1]))
        );
        // ...but a lone Joker goes back into the roll.
        assert_eq!(
            carla.act(&rolled([One, Joker, Two, Three, Six])),
            Action::Keep(DiceMask::of(&[0]))
        );
        assert!(carla.style.contains("lone Joker"), "{}", carla.style);
        assert!(
            !carla.style.contains("every scoring die"),
            "{}",
            carla.style
        );
    }
}
