//! The built-in computer levels' calibrated ratings, which [`crate::starting`]
//! gives them. The table below is written by
//! `cargo run --release -p game-rating --example rate-levels -- --rust`
//! (docs/ratings.md: how, when and with what result); replace it whole
//! with that command's output rather than editing it.

/// One computer level's measured rating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibrated {
    /// The game: `mille` or `cubes`.
    pub game: &'static str,
    /// The level (`classic`, `steady`...).
    pub level: &'static str,
    /// The measured rating (the mean over the second half of its games).
    pub rating: f64,
    /// Its deviation at the end of the calibration.
    pub deviation: f64,
    /// Its volatility at the end of the calibration.
    pub volatility: f64,
}

/// Every calibrated level, strongest first in each game.
pub const CALIBRATED: &[Calibrated] = &[
    Calibrated {
        game: "mille",
        level: "normal",
        rating: 1687.4,
        deviation: 76.5,
        volatility: 0.060002,
    },
    Calibrated {
        game: "mille",
        level: "easy",
        rating: 1590.8,
        deviation: 63.2,
        volatility: 0.060027,
    },
    Calibrated {
        game: "mille",
        level: "classic",
        rating: 1496.3,
        deviation: 62.8,
        volatility: 0.060036,
    },
    Calibrated {
        game: "mille",
        level: "random",
        rating: 1335.6,
        deviation: 66.4,
        volatility: 0.060015,
    },
    Calibrated {
        game: "cubes",
        level: "optimal",
        rating: 1686.1,
        deviation: 62.3,
        volatility: 0.060260,
    },
    Calibrated {
        game: "cubes",
        level: "bold",
        rating: 1588.1,
        deviation: 62.0,
        volatility: 0.060421,
    },
    Calibrated {
        game: "cubes",
        level: "steady",
        rating: 1584.1,
        deviation: 61.9,
        volatility: 0.060182,
    },
    Calibrated {
        game: "cubes",
        level: "cautious",
        rating: 1574.0,
        deviation: 61.9,
        volatility: 0.060271,
    },
    Calibrated {
        game: "cubes",
        level: "reckless",
        rating: 1391.1,
        deviation: 65.6,
        volatility: 0.060160,
    },
];
