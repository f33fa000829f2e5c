//! After-game review: every keep and hold decision of one seat of a
//! finished (or unfinished) game beside the optimal player's, with what it
//! cost, exactly.
//!
//! The review replays a [`GameRecord`] and, at each of the seat's choices
//! after a roll, reads the optimal player's own values of every open move
//! ([`crate::optimal::action_values`]: the solved win tables, no sampling).
//! The unit is the one the optimal player maximises at that point: the
//! probability of winning the game (two players, and every game's end
//! game), or the points expected to be banked this turn (three or more
//! players before the end game, and a game alone). A decision's loss is the
//! value of the optimal player's move less the value of the move made.
//! Rolling all five dice to start a turn is forced and is not a decision;
//! neither is a roll that leaves a single move.

use crate::model::UNIT;
use crate::optimal::{action_values, decide};
use crate::solver;
use crate::tables;
use cubes_engine::{Action, GameRecord, Phase, ReplayError, SetupError, State, ToAct, View};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// What a decision's values and loss are measured in.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// The probability (0 to 1) of winning the game.
    WinProbability,
    /// Points expected to be banked this turn.
    ExpectedPoints,
}

/// Losses (in a [`Unit`]) from which a decision is marked an inaccuracy,
/// a mistake and a blunder.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Thresholds {
    /// Smallest loss marked an inaccuracy.
    pub inaccuracy: f64,
    /// Smallest loss marked a mistake.
    pub mistake: f64,
    /// Smallest loss marked a blunder.
    pub blunder: f64,
}

/// Thresholds in win probability: 1, 3 and 6 percentage points. Measured
/// on games of the computer personalities against the optimal player
/// (`cargo run --release -p cubes-ai --example review_bench`), half of
/// their non-zero losses are under 0.7 points, nine in ten under 2.3 and
/// ninety-nine in a hundred under 6.2: a blunder is a loss few decisions
/// of a sound player come near.
pub const WIN_THRESHOLDS: Thresholds = Thresholds {
    inaccuracy: 0.01,
    mistake: 0.03,
    blunder: 0.06,
};

/// Thresholds in expected points banked this turn: 50, 150 and 300 (the
/// personalities' non-zero losses, by the same measure, have a median of
/// about 75 and nine in ten are under 210).
pub const POINTS_THRESHOLDS: Thresholds = Thresholds {
    inaccuracy: 50.0,
    mistake: 150.0,
    blunder: 300.0,
};

/// A loss this small is a tie with the optimal move (the tables' values are
/// single-precision; equal moves give equal values).
pub const TIE: f64 = 1e-7;

impl Unit {
    /// The thresholds of this unit.
    pub fn thresholds(self) -> Thresholds {
        match self {
            Unit::WinProbability => WIN_THRESHOLDS,
            Unit::ExpectedPoints => POINTS_THRESHOLDS,
        }
    }
}

/// How a decision is judged.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    /// The optimal move, or one worth exactly as much.
    Best,
    /// Worse than the optimal move by less than an inaccuracy.
    Good,
    /// A loss of at least the inaccuracy threshold.
    Inaccuracy,
    /// A loss of at least the mistake threshold.
    Mistake,
    /// A loss of at least the blunder threshold.
    Blunder,
}

impl Mark {
    /// The mark of a loss in a unit.
    pub fn of(loss: f64, unit: Unit) -> Mark {
        let t = unit.thresholds();
        if loss <= TIE {
            Mark::Best
        } else if loss >= t.blunder {
            Mark::Blunder
        } else if loss >= t.mistake {
            Mark::Mistake
        } else if loss >= t.inaccuracy {
            Mark::Inaccuracy
        } else {
            Mark::Good
        }
    }

    /// The mark as a word.
    pub fn word(self) -> &'static str {
        match self {
            Mark::Best => "best",
            Mark::Good => "good",
            Mark::Inaccuracy => "inaccuracy",
            Mark::Mistake => "mistake",
            Mark::Blunder => "blunder",
        }
    }
}

/// One move open at a decision and the optimal player's value of it.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Valued {
    /// The move.
    pub action: Action,
    /// Its value, in the decision's unit.
    pub value: f64,
}

/// One decision of the reviewed seat.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// Position among the seat's decisions (0 is the first).
    pub index: usize,
    /// Position of the move made in the record's actions.
    pub action_index: usize,
    /// The seat's turn (1 is its first).
    pub turn: u32,
    /// The table when the seat decided: scores, dice, turn total.
    pub view: View,
    /// The move made.
    pub made: Action,
    /// The optimal player's move.
    pub best: Action,
    /// The unit of the values and the loss.
    pub unit: Unit,
    /// Value of the move made.
    pub made_value: f64,
    /// Value of the optimal move.
    pub best_value: f64,
    /// `best_value - made_value` (never below zero).
    pub loss: f64,
    /// How the decision is judged.
    pub mark: Mark,
    /// Every move open, with its value, best first.
    pub options: Vec<Valued>,
}

/// How many of a review's decisions got each mark.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marks {
    /// Optimal moves.
    pub best: usize,
    /// Small losses.
    pub good: usize,
    /// Inaccuracies.
    pub inaccuracy: usize,
    /// Mistakes.
    pub mistake: usize,
    /// Blunders.
    pub blunder: usize,
}

/// A seat's game reviewed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameReview {
    /// The seat reviewed (0 is the first).
    pub seat: usize,
    /// Its decisions, in the order they were made.
    pub decisions: Vec<Decision>,
    /// Moves of the seat that were not choices (rolls to start a turn, and
    /// rolls leaving a single move).
    pub forced: usize,
    /// Win probability lost in all (decisions valued in win probability).
    pub win_lost: f64,
    /// Expected points lost in all (decisions valued in points).
    pub points_lost: f64,
    /// How many decisions got each mark.
    pub marks: Marks,
    /// Share of the decisions (in percent) that lost less than an
    /// inaccuracy: best and good moves. 100 when there were none.
    pub accuracy: f64,
    /// The seat that won, if the game is over.
    pub winner: Option<usize>,
}

/// Why a game cannot be reviewed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ReviewError {
    /// The record does not set up a game.
    #[error("the game cannot be set up: {0}")]
    Setup(#[from] SetupError),
    /// The record does not replay.
    #[error("the game does not replay: {0}")]
    Replay(#[from] ReplayError),
    /// A kind of game the optimal player has no solved tables for (its
    /// tables would be solved on the spot, taking time and memory that
    /// grow with the square of the target: a file must not ask for that).
    #[error(
        "the optimal player knows the Standard and Blitz games, not a game to {target} points with these thresholds"
    )]
    Unsolved {
        /// The game's target.
        target: u32,
    },
    /// No such seat.
    #[error("the game has seats 1 to {players}, not {}", .seat + 1)]
    NoSeat {
        /// The seat asked for (0 is the first).
        seat: usize,
        /// Seats in the game.
        players: usize,
    },
}

/// The optimal player's values of every move open in `view` (which must
/// be after a roll), in the unit it maximises there. Empty when there is
/// nothing to value.
pub fn valued(view: &View) -> (Unit, Vec<Valued>) {
    let unit = unit_of(view);
    let scale = match unit {
        Unit::WinProbability => 1.0,
        // The player values turns in units of the model.
        Unit::ExpectedPoints => f64::from(UNIT),
    };
    let mut options: Vec<Valued> = action_values(view)
        .into_iter()
        .map(|(action, v)| Valued {
            action,
            value: v * scale,
        })
        .collect();
    // Best first; the engine's order (hold first) breaks ties.
    options.sort_by(|a, b| b.value.total_cmp(&a.value));
    (unit, options)
}

/// The unit the optimal player maximises in `view`: the rule of
/// [`crate::optimal`] (two players, or anyone within 2,000 of the target:
/// win probability; alone, or more players before that: expected points).
pub fn unit_of(view: &View) -> Unit {
    let end_game = view
        .players
        .iter()
        .any(|p| p.score + 2000 >= view.settings.target);
    match view.players.len() {
        1 => Unit::ExpectedPoints,
        2 => Unit::WinProbability,
        _ if end_game => Unit::WinProbability,
        _ => Unit::ExpectedPoints,
    }
}

/// Judges one move `made` in `view`: `None` when it was no choice (fewer
/// than two moves open) or the optimal player has no value for it.
pub fn judge(view: &View, made: Action) -> Option<(Action, Unit, f64, f64, Vec<Valued>)> {
    if view.phase != Phase::Rolled {
        return None;
    }
    let (unit, options) = valued(view);
    if options.len() < 2 {
        return None;
    }
    let value_of = |a: Action| options.iter().find(|o| o.action == a).map(|o| o.value);
    let made_value = value_of(made)?;
    let best = decide(view);
    let best_value = value_of(best)?;
    Some((best, unit, best_value, made_value, options))
}

/// Reviews every decision of `seat` (0 is the first) in `record`.
pub fn review_game(record: &GameRecord, seat: usize) -> Result<GameReview, ReviewError> {
    if seat >= record.players {
        return Err(ReviewError::NoSeat {
            seat,
            players: record.players,
        });
    }
    let mut state = State::new(record.settings.clone(), record.players, record.seed)?;
    let jokers = state.view(0).jokers;
    if tables::shipped(&solver::Thresholds::of(&record.settings), jokers).is_none() {
        return Err(ReviewError::Unsolved {
            target: record.settings.target,
        });
    }
    let mut decisions = Vec::new();
    let mut forced = 0;
    for (index, &action) in record.actions.iter().enumerate() {
        if state.to_act() == ToAct::Seat(seat) {
            let view = state.view(seat);
            match judge(&view, action) {
                Some((best, unit, best_value, made_value, options)) => {
                    let loss = (best_value - made_value).max(0.0);
                    decisions.push(Decision {
                        index: decisions.len(),
                        action_index: index,
                        turn: view.players[seat].turns + 1,
                        view,
                        made: action,
                        best,
                        unit,
                        made_value,
                        best_value,
                        loss,
                        mark: Mark::of(loss, unit),
                        options,
                    });
                }
                None => forced += 1,
            }
        }
        state.apply(action).map_err(|reason| ReplayError::Illegal {
            index,
            action,
            reason,
        })?;
    }
    let mut marks = Marks::default();
    let (mut win_lost, mut points_lost) = (0.0, 0.0);
    for d in &decisions {
        match d.mark {
            Mark::Best => marks.best += 1,
            Mark::Good => marks.good += 1,
            Mark::Inaccuracy => marks.inaccuracy += 1,
            Mark::Mistake => marks.mistake += 1,
            Mark::Blunder => marks.blunder += 1,
        }
        match d.unit {
            Unit::WinProbability => win_lost += d.loss,
            Unit::ExpectedPoints => points_lost += d.loss,
        }
    }
    let accuracy = if decisions.is_empty() {
        100.0
    } else {
        100.0 * (marks.best + marks.good) as f64 / decisions.len() as f64
    };
    Ok(GameReview {
        seat,
        decisions,
        forced,
        win_lost,
        points_lost,
        marks,
        accuracy,
        winner: state.winner(),
    })
}

#[cfg(test)]
mod tests {
    //! The review's values are the optimal player's own, its best moves
    //! are the optimal player's, and a move that throws the game away is a
    //! blunder.

    use super::*;
    use crate::Brain;
    use crate::optimal::action_values;
    use crate::personality::Personality;
    use cubes_engine::{DiceMask, Face, Settings};

    /// A whole game where seat 0 plays `first` and every other seat the
    /// optimal player, as a record.
    fn game(settings: Settings, players: usize, seed: u64, first: &Personality) -> GameRecord {
        let mut record = GameRecord::new(settings.clone(), players, seed);
        let mut state = State::new(settings, players, seed).expect("setup");
        while let ToAct::Seat(s) = state.to_act() {
            let view = state.view(s);
            let a = if s == 0 {
                first.act(&view)
            } else {
                decide(&view)
            };
            state.apply(a).expect("legal");
            record.actions.push(a);
        }
        record
    }

    #[test]
    fn the_values_are_the_optimal_players_own() {
        let record = game(Settings::standard(), 2, 11, &Personality::steady());
        let review = review_game(&record, 0).expect("review");
        assert!(review.decisions.len() > 10, "{}", review.decisions.len());
        assert_eq!(review.winner, record.replay().expect("replay").winner());
        for d in &review.decisions {
            assert_eq!(d.unit, Unit::WinProbability);
            let raw = action_values(&d.view);
            assert_eq!(raw.len(), d.options.len());
            for (a, v) in raw {
                let o = d.options.iter().find(|o| o.action == a).expect("valued");
                assert_eq!(o.value, v, "{a}");
            }
            assert_eq!(d.best, decide(&d.view));
            assert!(d.best_value >= d.made_value);
            assert_eq!(d.loss, d.best_value - d.made_value);
        }
        // Holding: the win table read directly, at the scores after the
        // bank, from the opponent's side.
        let brain = Brain::get(&Settings::standard(), false);
        let holds = review
            .decisions
            .iter()
            .filter_map(|d| {
                let banked = d.view.can_hold().ok()?;
                let v = d.options.iter().find(|o| o.action == Action::Hold)?.value;
                Some((d, banked, v))
            })
            .collect::<Vec<_>>();
        assert!(holds.len() > 3, "{}", holds.len());
        for (d, banked, v) in holds {
            let me = d.view.players[0].score + banked;
            let them = d.view.players[1].score;
            if me >= d.view.settings.target {
                continue;
            }
            assert_eq!(v, 1.0 - brain.win_probability(them, me));
        }
    }

    #[test]
    fn three_players_are_valued_in_points_until_the_end_game() {
        let record = game(Settings::standard(), 3, 5, &Personality::bold());
        let review = review_game(&record, 0).expect("review");
        let points: Vec<_> = review
            .decisions
            .iter()
            .filter(|d| d.unit == Unit::ExpectedPoints)
            .collect();
        assert!(!points.is_empty());
        assert!(
            review
                .decisions
                .iter()
                .any(|d| d.unit == Unit::WinProbability)
        );
        for d in points {
            // Holding banks exactly what the turn holds.
            if let Ok(total) = d.view.can_hold() {
                let hold = d.options.iter().find(|o| o.action == Action::Hold);
                assert_eq!(hold.map(|o| o.value), Some(f64::from(total)));
            }
            for (a, v) in action_values(&d.view) {
                let o = d.options.iter().find(|o| o.action == a).expect("valued");
                assert_eq!(o.value, v * f64::from(UNIT));
            }
        }
    }

    #[test]
    fn every_choice_of_the_seat_is_valued() {
        for (players, seed) in [(2, 4), (3, 6), (1, 2)] {
            let record = game(
                Settings::standard(),
                players,
                seed,
                &Personality::reckless(),
            );
            let mut state = State::new(record.settings.clone(), players, seed).expect("setup");
            let mut choices = 0;
            for &a in &record.actions {
                if state.to_act() == ToAct::Seat(0) && state.legal_actions().len() > 1 {
                    choices += 1;
                }
                state.apply(a).expect("legal");
            }
            let review = review_game(&record, 0).expect("review");
            assert_eq!(review.decisions.len(), choices, "{players} players");
        }
    }

    #[test]
    fn the_optimal_player_is_marked_best_at_every_decision() {
        for seed in [1, 2, 3] {
            let record = game(Settings::standard(), 2, seed, &Personality::steady());
            let review = review_game(&record, 1).expect("review");
            assert!(!review.decisions.is_empty());
            assert!(review.decisions.iter().all(|d| d.mark == Mark::Best));
            assert_eq!(review.accuracy, 100.0);
            assert_eq!(review.win_lost, 0.0);
        }
    }

    /// The seat to act in a fresh two-player game has rolled `dice`, the
    /// scores being `scores` (the seat to act first).
    fn rolled(dice: [Face; 5], scores: [u32; 2]) -> View {
        let mut s = State::new(Settings::standard(), 2, 1).expect("setup");
        let me = s.current();
        s.apply_with_dice(Action::Roll, dice).expect("roll");
        let mut view = s.view(me);
        view.players[me].score = scores[0];
        view.players[1 - me].score = scores[1];
        for p in &mut view.players {
            p.on_board = p.score > 0;
        }
        view
    }

    #[test]
    fn keeping_fewer_scoring_dice_or_banking_little_is_judged_by_its_cost() {
        use Face::*;
        // Three ones at 3,000 all: banking the 1,000 is best; keeping all
        // three and rolling on costs 4 points of the game, keeping a
        // single one (500 points thrown back) over 8.
        let view = rolled([One, One, One, Two, Three], [3000, 3000]);
        assert_eq!(view.phase, Phase::Rolled);
        let all = Action::Keep(DiceMask(0b00111));
        let one = Action::Keep(DiceMask(0b00010));
        let (best, unit, bv, mv, _) = judge(&view, Action::Hold).expect("a choice");
        assert_eq!((best, unit), (Action::Hold, Unit::WinProbability));
        assert_eq!(Mark::of(bv - mv, unit), Mark::Best);
        let (_, _, bv, mv, _) = judge(&view, all).expect("a choice");
        assert_eq!(Mark::of(bv - mv, unit), Mark::Mistake, "{}", bv - mv);
        let (_, _, bv, mv, _) = judge(&view, one).expect("a choice");
        assert_eq!(Mark::of(bv - mv, unit), Mark::Blunder, "{}", bv - mv);
        // Late in the game, far behind, banking a single five (with four
        // dice to roll on) gives the game away.
        let view = rolled([Five, Two, Three, Three, Six], [8500, 9800]);
        let (best, unit, bv, mv, _) = judge(&view, Action::Hold).expect("a choice");
        assert!(matches!(best, Action::Keep(_)));
        assert_eq!(Mark::of(bv - mv, unit), Mark::Blunder, "{}", bv - mv);
    }

    #[test]
    fn a_seat_that_is_not_there_is_refused() {
        let record = game(Settings::blitz(), 2, 3, &Personality::steady());
        assert_eq!(
            review_game(&record, 2),
            Err(ReviewError::NoSeat {
                seat: 2,
                players: 2
            })
        );
        let mut odd = record.clone();
        odd.settings.target = 3_000_000_000;
        assert_eq!(
            review_game(&odd, 0),
            Err(ReviewError::Unsolved {
                target: 3_000_000_000
            })
        );
        let mut broken = record.clone();
        broken.actions.insert(0, Action::Hold);
        assert!(matches!(
            review_game(&broken, 0),
            Err(ReviewError::Replay(_))
        ));
    }

    #[test]
    fn a_review_round_trips_through_json() {
        let record = game(Settings::blitz(), 2, 8, &Personality::reckless());
        let review = review_game(&record, 0).expect("review");
        let json = serde_json::to_string(&review).expect("json");
        assert!(json.contains("\"unit\":\"win_probability\""), "{json}");
        let back: GameReview = serde_json::from_str(&json).expect("back");
        assert_eq!(back.decisions.len(), review.decisions.len());
        assert_eq!(back.marks, review.marks);
    }
}
