//! Ratings for the server's games: one (rating, deviation, volatility) per
//! player and [`Category`], moved by the result of a rated game.
//!
//! This crate owns the rating rules, not their storage: [`rate`] turns the
//! ratings and places of a finished game's players into their new ratings,
//! [`Rating::after_idle`] grows a deviation over a time without rated games,
//! and [`starting`] gives the rating a player starts a category with (the
//! built-in computer levels start at their calibrated ratings, which anchor
//! the scale). The formulas are `skillratings`': Glicko-2 when two players
//! meet, Weng-Lin (set to Glicko's scale) for teams and for three or more
//! sides. `docs/ratings.md` tells the whole story.

mod calibration;
mod category;

pub use calibration::{CALIBRATED, Calibrated};
pub use category::Category;

use serde::{Deserialize, Serialize};
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};
use skillratings::{MultiTeamOutcome, Outcomes};
use std::collections::BTreeMap;

/// A rating whose deviation is above this is provisional (shown `1500?`).
pub const PROVISIONAL_ABOVE: f64 = 110.0;

/// The deviation of a player nobody knows anything about, and the most a
/// deviation grows to while its player does not play.
pub const MAX_DEVIATION: f64 = 350.0;

/// The rating a new player starts with.
pub const START_RATING: f64 = 1500.0;

/// The volatility a new player starts with (Glicko-2's usual 0.06).
pub const START_VOLATILITY: f64 = 0.06;

/// How long one Glicko-2 rating period lasts for [`Rating::after_idle`]: a
/// day without a rated game grows the deviation as one period without
/// games does.
pub const RATING_PERIOD_SECONDS: f64 = 86_400.0;

/// The lowest deviation a calibrated computer level starts with, so that
/// its rating still moves a little with its games against people.
pub const COMPUTER_MIN_DEVIATION: f64 = 50.0;

/// Glicko-2's factor between its internal scale and the rating scale.
const GLICKO2_SCALE: f64 = 173.7178;

/// The inputs [`rate`] takes: ratings far outside these ranges are not a
/// player's but a corrupted row's, and would take the formulas to
/// infinities (or, in Glicko-2's volatility search, to no end).
const RATING_RANGE: std::ops::RangeInclusive<f64> = -1_000.0..=4_000.0;
const DEVIATION_RANGE: std::ops::RangeInclusive<f64> = 1.0..=1_000.0;
const VOLATILITY_RANGE: std::ops::RangeInclusive<f64> = 1e-6..=1.0;

/// A player's rating in one category.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The rating: 1500 for a newcomer, higher is stronger.
    pub rating: f64,
    /// How uncertain the rating is (one standard deviation): 350 for a
    /// newcomer, shrinking with games, growing without them.
    pub deviation: f64,
    /// Glicko-2's volatility: how erratic the player's results are.
    pub volatility: f64,
}

impl Default for Rating {
    fn default() -> Rating {
        Rating {
            rating: START_RATING,
            deviation: MAX_DEVIATION,
            volatility: START_VOLATILITY,
        }
    }
}

impl Rating {
    /// Whether the deviation is still too high to trust the rating.
    pub fn provisional(&self) -> bool {
        self.deviation > PROVISIONAL_ABOVE
    }

    /// The rating after `seconds` without a rated game: Glicko-2's growth
    /// of the deviation over periods without games (`skillratings`'
    /// `decay_deviation`, one period a day, a fraction of a day counting
    /// as a fraction of a period), at most [`MAX_DEVIATION`]. The rating
    /// and volatility do not change; nor does anything for no time, a
    /// negative time (a clock set back) or a value that is not a number.
    pub fn after_idle(self, seconds: i64) -> Rating {
        if seconds <= 0 || !self.is_finite() || self.deviation >= MAX_DEVIATION {
            return self;
        }
        let periods = seconds as f64 / RATING_PERIOD_SECONDS;
        // decay_deviation adds volatility² to the squared deviation (on
        // Glicko-2's scale) once a period; n periods add n times as much,
        // which this does in one step, whatever n.
        let phi = self.deviation / GLICKO2_SCALE;
        let grown =
            (phi * phi + periods * self.volatility * self.volatility).sqrt() * GLICKO2_SCALE;
        Rating {
            deviation: grown.min(MAX_DEVIATION),
            ..self
        }
    }

    /// The rating as people read it: rounded, with `?` when provisional
    /// ("1540", "1500?").
    pub fn label(&self) -> String {
        let r = self.rating.round();
        if self.provisional() {
            format!("{r:.0}?")
        } else {
            format!("{r:.0}")
        }
    }

    fn is_finite(&self) -> bool {
        self.rating.is_finite() && self.deviation.is_finite() && self.volatility.is_finite()
    }

    fn glicko2(self) -> Glicko2Rating {
        Glicko2Rating {
            rating: self.rating,
            deviation: self.deviation,
            volatility: self.volatility,
        }
    }

    fn weng_lin(self) -> WengLinRating {
        WengLinRating {
            rating: self.rating,
            uncertainty: self.deviation,
        }
    }
}

/// One player of a finished game, as [`rate`] takes them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Participant {
    /// The player's rating before the game (already grown by idleness).
    pub rating: Rating,
    /// The player's side: partners share one (any numbers, compared only
    /// for equality).
    pub side: usize,
    /// The side's place: 0 for the winners, then higher for worse results;
    /// equal places are ties. Every player of a side has its place.
    pub place: usize,
    /// The player abandoned the game: their own new rating is computed as
    /// if their side had come last, whatever it did without them.
    pub abandoned: bool,
}

/// Why [`rate`] refused a game.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RateError {
    /// A game is rated among at least two sides.
    #[error("a rated game needs at least 2 sides, not {0}")]
    TooFewSides(usize),
    /// A rating, deviation or volatility is not a finite number.
    #[error("player {player}'s {what} is not a number ({value})")]
    NotFinite {
        /// The player's index.
        player: usize,
        /// `rating`, `deviation` or `volatility`.
        what: &'static str,
        /// The value.
        value: f64,
    },
    /// A rating, deviation or volatility is out of the range the formulas
    /// are meant for.
    #[error("player {player}'s {what} {value} is out of range ({low} to {high})")]
    OutOfRange {
        /// The player's index.
        player: usize,
        /// `rating`, `deviation` or `volatility`.
        what: &'static str,
        /// The value.
        value: f64,
        /// The lowest value allowed.
        low: f64,
        /// The highest value allowed.
        high: f64,
    },
    /// Two players of one side have different places.
    #[error("side {side} has two places, {first} and {second}")]
    SplitSide {
        /// The side.
        side: usize,
        /// One player's place.
        first: usize,
        /// Another's.
        second: usize,
    },
    /// The formulas gave a value that is not a number (inputs at the edge
    /// of the ranges).
    #[error("the new rating of player {0} is not a number")]
    Overflow(usize),
}

/// The Glicko-2 settings: `skillratings`' defaults (tau 0.5), those of
/// Glickman's paper.
pub fn glicko2_config() -> Glicko2Config {
    Glicko2Config::new()
}

/// The Weng-Lin settings, on Glicko's scale: its defaults (mu 25, sigma
/// 25/3, beta 25/6) scaled by 42 and centred on 1500, so a newcomer is
/// 1500 ± 350 as in Glicko-2, and beta, about the rating difference worth
/// two chances in three, is 175. (Ratings enter as they are, so only the
/// scale of beta is set here.)
pub fn weng_lin_config() -> WengLinConfig {
    WengLinConfig {
        beta: MAX_DEVIATION / 2.0,
        ..WengLinConfig::new()
    }
}

/// The new ratings of a finished game's players, in their order.
///
/// Exactly two sides of one player each: Glicko-2 (`skillratings`'
/// `glicko2`: a win, a loss or, for equal places, a draw). Otherwise
/// (teams, three or more sides): Weng-Lin's Bradley-Terry model for
/// teams (`weng_lin_multi_team`), teams grouped by `side`, ranked by
/// `place` (ties allowed), on Glicko's scale ([`weng_lin_config`]); it
/// leaves volatilities as they were.
///
/// A player who did not abandon is rated from the real places, abandoners
/// included as they finished. An abandoner's own new rating is computed
/// as if their side had been placed after every other side: a loss,
/// even if the computer that took their seat won.
pub fn rate(players: &[Participant]) -> Result<Vec<Rating>, RateError> {
    check(players)?;
    // Sides in order of first appearance, with their places.
    let mut sides: Vec<(usize, usize)> = Vec::new();
    for p in players {
        match sides.iter().find(|(s, _)| *s == p.side) {
            Some(&(_, place)) if place != p.place => {
                return Err(RateError::SplitSide {
                    side: p.side,
                    first: place,
                    second: p.place,
                });
            }
            Some(_) => {}
            None => sides.push((p.side, p.place)),
        }
    }
    if sides.len() < 2 {
        return Err(RateError::TooFewSides(sides.len()));
    }
    let places: BTreeMap<usize, usize> = sides.iter().copied().collect();
    let mut new = rate_places(players, &places);
    // Each side with an abandoner once more, that side last, for the
    // abandoners' own ratings.
    let last = places.values().max().copied().unwrap_or(0) + 1;
    for &(side, _) in &sides {
        if !players.iter().any(|p| p.side == side && p.abandoned) {
            continue;
        }
        let mut worst = places.clone();
        worst.insert(side, last);
        let theirs = rate_places(players, &worst);
        for (i, p) in players.iter().enumerate() {
            if p.side == side && p.abandoned {
                new[i] = theirs[i];
            }
        }
    }
    match new.iter().position(|r| !r.is_finite()) {
        Some(i) => Err(RateError::Overflow(i)),
        None => Ok(new),
    }
}

/// Every player's new rating with the sides placed as `places` says
/// (every side has a place; at least two sides).
fn rate_places(players: &[Participant], places: &BTreeMap<usize, usize>) -> Vec<Rating> {
    let place = |p: &Participant| places.get(&p.side).copied().unwrap_or(p.place);
    if let [a, b] = players
        && places.len() == 2
    {
        let outcome = match place(a).cmp(&place(b)) {
            std::cmp::Ordering::Less => Outcomes::WIN,
            std::cmp::Ordering::Equal => Outcomes::DRAW,
            std::cmp::Ordering::Greater => Outcomes::LOSS,
        };
        let (na, nb) = glicko2(
            &a.rating.glicko2(),
            &b.rating.glicko2(),
            &outcome,
            &glicko2_config(),
        );
        return vec![from_glicko2(na), from_glicko2(nb)];
    }
    // Teams in order of first appearance, each with its members' indices.
    let mut teams: Vec<(usize, Vec<usize>, Vec<WengLinRating>)> = Vec::new();
    for (i, p) in players.iter().enumerate() {
        match teams.iter_mut().find(|(s, _, _)| *s == p.side) {
            Some((_, members, ratings)) => {
                members.push(i);
                ratings.push(p.rating.weng_lin());
            }
            None => teams.push((p.side, vec![i], vec![p.rating.weng_lin()])),
        }
    }
    let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .map(|(side, _, ratings)| {
            let rank = places.get(side).copied().unwrap_or(0);
            (ratings.as_slice(), MultiTeamOutcome::new(rank))
        })
        .collect();
    let rated = weng_lin_multi_team(&ranked, &weng_lin_config());
    let mut new: Vec<Rating> = players.iter().map(|p| p.rating).collect();
    for ((_, members, _), after) in teams.iter().zip(rated) {
        for (&i, r) in members.iter().zip(after) {
            new[i] = Rating {
                rating: r.rating,
                deviation: r.uncertainty,
                volatility: players[i].rating.volatility,
            };
        }
    }
    new
}

fn from_glicko2(r: Glicko2Rating) -> Rating {
    Rating {
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
    }
}

/// Refuses numbers the formulas are not meant for.
fn check(players: &[Participant]) -> Result<(), RateError> {
    for (i, p) in players.iter().enumerate() {
        let r = p.rating;
        for (what, value, range) in [
            ("rating", r.rating, RATING_RANGE),
            ("deviation", r.deviation, DEVIATION_RANGE),
            ("volatility", r.volatility, VOLATILITY_RANGE),
        ] {
            if !value.is_finite() {
                return Err(RateError::NotFinite {
                    player: i,
                    what,
                    value,
                });
            }
            if !range.contains(&value) {
                return Err(RateError::OutOfRange {
                    player: i,
                    what,
                    value,
                    low: *range.start(),
                    high: *range.end(),
                });
            }
        }
    }
    Ok(())
}

/// The rated name of a built-in computer level: `computer: classic`.
pub fn computer_name(level: &str) -> String {
    format!("{COMPUTER_PREFIX}{level}")
}

/// The level of a built-in computer's rated name (`computer: classic` →
/// `classic`); `None` for a person's name.
pub fn computer_level(name: &str) -> Option<&str> {
    name.strip_prefix(COMPUTER_PREFIX)
        .filter(|level| !level.is_empty())
}

const COMPUTER_PREFIX: &str = "computer: ";

/// The rating a player starts with in a category: a built-in computer
/// level's calibrated rating (measured for one category of each game, see
/// [`CALIBRATED`], and used for every category of that game), with a
/// deviation of at least [`COMPUTER_MIN_DEVIATION`]; anyone else (and a
/// level not calibrated) starts at the default, 1500 ± 350.
pub fn starting(category: Category, name: &str) -> Rating {
    computer_level(name)
        .and_then(|level| {
            CALIBRATED
                .iter()
                .find(|c| c.game == category.game() && c.level == level)
        })
        .map_or_else(Rating::default, |c| Rating {
            rating: c.rating,
            deviation: c.deviation.max(COMPUTER_MIN_DEVIATION),
            volatility: c.volatility,
        })
}

#[cfg(test)]
mod tests;
