//! The random-play hot path never touches the heap: thousands of complete
//! hands, deals included, with zero allocations.

use mille_engine::sim::play_random_hand;
use mille_engine::{Action, ActionList, GameConfig, RulesetId, State};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

#[test]
fn random_hands_do_not_allocate() {
    for (rules, players) in [
        (RulesetId::Bsd, 2),
        (RulesetId::Classic, 4),
        (RulesetId::Classic, 6),
    ] {
        let config = GameConfig {
            rules,
            players,
            stacking: false,
        };
        let mut state = State::new(config, 5).expect("config");
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut list = ActionList::default();
        let info = allocation_counter::measure(|| {
            for _ in 0..2_000 {
                if state.apply(Action::NextHand).is_err() {
                    let _ = state.apply(Action::NextGame);
                }
                play_random_hand(&mut state, &mut rng);
                state.legal_actions(&mut list);
                let _copy = state.clone();
            }
        });
        assert_eq!(info.count_total, 0, "{rules} {players}p allocated");
    }
}
