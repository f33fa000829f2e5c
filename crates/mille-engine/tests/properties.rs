//! Invariants over thousands of random games of every ruleset and seat
//! count: cards are conserved, hands stay in bounds, `legal_actions` and
//! `apply` agree, every hand ends, and views determinize back consistently.

use mille_engine::view::{Decision, determinize_for};
use mille_engine::{
    Action, ActionList, Card, GameConfig, Kind, Phase, RulesetId, State, ToAct, bounded,
};
use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

const CONFIGS: [(RulesetId, u8, bool); 8] = [
    (RulesetId::Bsd, 2, false),
    (RulesetId::Milebones, 2, false),
    (RulesetId::Classic, 2, false),
    (RulesetId::Classic, 3, false),
    (RulesetId::Classic, 4, false),
    (RulesetId::Classic, 6, false),
    (RulesetId::Classic, 3, true),
    (RulesetId::Classic, 4, true),
];

/// Every action a seat could conceivably send.
fn all_candidates(teams: u8) -> Vec<Action> {
    let mut v = vec![
        Action::Draw,
        Action::DeclineCoupFourre,
        Action::Extend(true),
        Action::Extend(false),
        Action::NextHand,
        Action::NextGame,
    ];
    for c in Card::ALL {
        for t in 0..=teams {
            v.push(Action::Play { card: c, target: t });
        }
        v.push(Action::Discard(c));
        v.push(Action::CoupFourre(c));
    }
    v
}

/// Plays one random hand, checking the invariants at every step.
fn check_hand(state: &mut State, rng: &mut ChaCha8Rng, candidates: &[Action]) {
    let deck_total: u32 = state.rules().deck_size();
    let deck = state.rules().deck;
    let mut list = ActionList::default();
    let mut steps = 0;
    loop {
        steps += 1;
        assert!(steps < 2000, "hand did not terminate");
        let counts = state.card_counts();
        assert_eq!(counts.total(), deck_total, "cards lost or created");
        assert_eq!(counts.0, deck, "card kinds not conserved");
        for s in 0..state.rules().seats {
            assert!(
                state.hand(s).len() <= 7,
                "hand too big: {:?}",
                state.hand(s)
            );
        }
        if let ToAct::Seat(seat) = state.to_act() {
            // A seat's own view, determinized, sees the same legal moves.
            let view = state.view(seat);
            let json = serde_json::to_string(&view).expect("view serialises");
            let back: mille_engine::View = serde_json::from_str(&json).expect("view parses");
            assert_eq!(back, view);
            // Views cannot express the stacking variant, so skip it there.
            if let Phase::Turn { drawn: true, .. } = state.phase()
                && !state.rules().stacking
            {
                let det = determinize_for(&view, Decision::Turn, rng).expect("determinizes");
                let mut det_list = ActionList::default();
                det.legal_actions(&mut det_list);
                state.legal_actions(&mut list);
                assert_eq!(det_list.as_slice(), list.as_slice());
                assert_eq!(det.card_counts().0, deck, "full view accounts every card");
            }
        }
        state.legal_actions(&mut list);
        assert!(!list.is_empty(), "no legal action in {:?}", state.phase());
        for &a in candidates {
            let listed = list.contains(&a);
            match state.check(a) {
                Ok(()) => assert!(listed, "{a} applies but is not listed"),
                Err(reason) => {
                    assert!(!listed, "{a} listed but refused: {reason}");
                    assert!(!reason.to_string().is_empty());
                }
            }
        }
        for w in list.windows(2) {
            assert_ne!(w[0], w[1], "duplicate action");
        }
        if matches!(state.phase(), Phase::HandOver | Phase::GameOver) {
            break;
        }
        let a = list[bounded(rng, list.len() as u32) as usize];
        let before = state.clone();
        state
            .apply(a)
            .unwrap_or_else(|e| panic!("{a} refused: {e} in {:?}", before.phase()));
        if let Some(c) = a.card()
            && !matches!(a, Action::Discard(_))
            && c.kind() == Kind::Hazard
        {
            // A hazard never lands on a protected side.
            if let Action::Play { target, .. } = a {
                let s = c.safety().expect("hazard has a safety");
                assert!(!before.tableau(target).safeties.has(s));
            }
        }
    }
    let scores = state.last_scores().expect("scored");
    assert_eq!(scores.len(), state.rules().teams as usize);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn random_games_keep_every_invariant(seed in any::<u64>(), which in 0..CONFIGS.len()) {
        let (rules, players, stacking) = CONFIGS[which];
        let config = GameConfig { rules, players, stacking };
        let mut state = State::new(config, seed).expect("config");
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
        let candidates = all_candidates(state.rules().teams);
        // A whole game: hands until a side reaches 5000 (bounded).
        for _ in 0..40 {
            check_hand(&mut state, &mut rng, &candidates);
            if state.phase() == Phase::GameOver {
                prop_assert!(state.totals().iter().any(|&t| t >= 5000));
                break;
            }
            state.apply(Action::NextHand).expect("next hand");
        }
    }
}

/// Many more complete hands without the expensive per-step checks, to find
/// rare panics and non-terminating hands.
#[test]
fn thousands_of_random_hands_terminate_and_conserve_cards() {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    for (i, &(rules, players, stacking)) in CONFIGS.iter().cycle().take(8 * 500).enumerate() {
        let config = GameConfig {
            rules,
            players,
            stacking,
        };
        let mut state = State::new(config, i as u64).expect("config");
        let n = mille_engine::sim::play_random_hand(&mut state, &mut rng);
        assert!(n < 2000);
        assert_eq!(state.card_counts().0, state.rules().deck);
    }
}
