//! The bounds of `rules.rs` against real play: every view a game shows
//! passes `Rules::check_view` (the check refuses only what no game
//! produces), and a view pushed past any bound is refused in a sentence
//! that names the field and its range.
//!
//! Cases default to a few dozen whole games; `PROPTEST_CASES=<n>` plays more.

use mille_engine::view::rules_of;
use mille_engine::{Action, Card, GameConfig, Phase, State, ToAct};
use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

/// Plays a whole game at random, checking every seat's view at every
/// decision.
fn every_view_of_a_game_passes(config: GameConfig, seed: u64) -> Result<(), TestCaseError> {
    let mut state = State::new(config, seed).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let mut steps = 0u32;
    while state.phase() != Phase::GameOver {
        if let ToAct::Seat(_) = state.to_act() {
            for seat in state.rules().seats_iter() {
                let view = state.view(seat);
                let rules = rules_of(&view).map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(
                    rules.check_view(&view),
                    Ok(()),
                    "{:?} seat {}",
                    config,
                    seat
                );
            }
        }
        if state.to_act() == ToAct::Deal {
            state
                .apply(Action::NextHand)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
        } else {
            state.step_random(&mut rng);
        }
        steps += 1;
        prop_assert!(steps < 200_000, "the game never ended");
    }
    Ok(())
}

/// `default` cases, or as many as `PROPTEST_CASES` says.
fn cases(default: u32) -> ProptestConfig {
    let n = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    ProptestConfig::with_cases(n)
}

proptest! {
    #![proptest_config(cases(16))]

    /// Real games never trip the bounds, at any decision of any seat.
    #[test]
    fn every_real_view_is_within_the_bounds(
        config in proptest::sample::select(GameConfig::every().collect::<Vec<_>>()),
        seed in any::<u64>(),
    ) {
        every_view_of_a_game_passes(config, seed)?;
    }

    /// A view moved past one bound is refused, naming the field.
    #[test]
    fn a_view_past_a_bound_is_refused_naming_the_field(
        config in proptest::sample::select(GameConfig::every().collect::<Vec<_>>()),
        seed in any::<u64>(),
        field in 0..4usize,
        excess in 1u32..=u32::MAX / 2,
    ) {
        let mut state = State::new(config, seed).map_err(|e| TestCaseError::fail(e.to_string()))?;
        state.apply(Action::Draw).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let seat0 = state.rules().seat(0).ok_or_else(|| TestCaseError::fail("no seat 0"))?;
        let mut view = state.view(seat0);
        let r = rules_of(&view).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let longest = u32::from(r.longest_trip());
        let name = match field {
            0 => {
                view.target = u16::try_from(longest + excess).unwrap_or(u16::MAX);
                "target"
            }
            1 => {
                let n = (u64::from(view.target) / 200 + 1 + u64::from(excess % 500)) as usize;
                view.teams[0].distance = vec![Card::D200; n];
                "the distance of teams[0]"
            }
            2 => {
                view.teams[0].score.game = u32::from(r.scoring.game) - 1 + excess;
                "teams[0].score.game"
            }
            _ => {
                view.teams[0].score.hand = r.max_hand_score() + excess;
                "teams[0].score.hand"
            }
        };
        let err = r.check_view(&view).expect_err("past a bound");
        let text = err.to_string();
        prop_assert!(text.starts_with(&format!("{name} must be ")), "{}", text);
        prop_assert!(!text.contains("--"), "{}", text);
    }
}
