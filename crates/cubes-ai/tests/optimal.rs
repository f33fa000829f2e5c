//! The optimal player against its own table: on a small game (target 1,500,
//! solved in a moment) the simulated first-player win rate of optimal
//! against optimal must match the solved `W(0, 0)`, and optimal must beat
//! every personality. A decision bug (for instance valuing a keep as if the
//! turn could still be banked, although a keep commits to rolling) shows up
//! as a gap between the two.

use cubes_ai::sim::run_match;
use cubes_ai::{Bot, Brain, OptimalBot, Personality};
use cubes_engine::Settings;

fn small() -> Settings {
    Settings {
        name: "Small".into(),
        target: 1_500,
        ..Settings::standard()
    }
}

#[test]
fn simulated_first_player_rate_matches_the_table() {
    let settings = small();
    let w00 = Brain::get(&settings, false).win_probability(0, 0);
    assert!(w00 > 0.5 && w00 < 0.75, "{w00}");
    let games = 40_000;
    let r = run_match(
        &settings,
        games,
        7,
        || Box::new(OptimalBot::default()) as Box<dyn Bot>,
        || Box::new(OptimalBot::new("Other")) as Box<dyn Bot>,
    );
    let rate = r.first_rate();
    let sigma = (w00 * (1.0 - w00) / games as f64).sqrt();
    assert!(
        (rate - w00).abs() < 4.0 * sigma,
        "simulated {rate:.4} vs table {w00:.4} (sigma {sigma:.4})"
    );
}

#[test]
fn optimal_beats_every_personality() {
    let settings = small();
    for p in Personality::all() {
        let r = run_match(
            &settings,
            6_000,
            11,
            || Box::new(OptimalBot::default()) as Box<dyn Bot>,
            || Box::new(p.clone()) as Box<dyn Bot>,
        );
        let rate = r.a_rate();
        assert!(rate - r.ci95(rate) > 0.5, "{}: {rate:.3}", p.name);
    }
}
