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
    /// The measured rating.
    pub rating: f64,
    /// Its deviation at the end of the calibration.
    pub deviation: f64,
    /// Its volatility at the end of the calibration.
    pub volatility: f64,
}

/// Every calibrated level (not measured yet: every level starts at the
/// default rating).
pub const CALIBRATED: &[Calibrated] = &[];
