//! Property tests over whole random games: whatever legal actions are taken,
//! the engine keeps its invariants, refuses what is not legal without
//! changing anything, and replays bit for bit from seed + actions.

use cubes_engine::{Action, DiceMask, Event, GameRecord, JokerRule, Phase, Settings, State, ToAct};
use proptest::prelude::*;

fn settings(kind: u8, jokers: u8) -> Settings {
    let s = if kind == 0 {
        Settings::standard()
    } else {
        Settings::blitz()
    };
    s.with_jokers(match jokers {
        0 => JokerRule::Never,
        1 => JokerRule::Always,
        _ => JokerRule::OneGameInSix,
    })
}

/// A game played by a "mostly sensible" random policy: `choices` pick among
/// the legal actions, biased to keep rolling small totals so games finish.
fn play(s: &mut State, choices: &[u16], max_actions: usize) -> (Vec<Action>, Vec<u32>) {
    let mut actions = Vec::new();
    let mut banked = vec![0u32; s.players().len()];
    for i in 0..max_actions {
        let legal = s.legal_actions();
        if legal.is_empty() {
            assert!(matches!(s.to_act(), ToAct::GameOver { .. }));
            break;
        }
        let c = usize::from(choices[i % choices.len()]);
        let turn_points = s.turn().bank_value().unwrap_or(0);
        let a = if legal.contains(Action::Hold) && (turn_points >= 300 || c % 7 == 0) {
            Action::Hold
        } else {
            legal.as_slice()[c % legal.len()]
        };
        let before = s.players().to_vec();
        let seat = s.current();
        let ev = s.apply(a).expect("a legal action is accepted");
        actions.push(a);
        for e in &ev {
            match e {
                Event::Banked {
                    seat: who,
                    points,
                    score,
                    ..
                } => {
                    assert_eq!(*who, seat);
                    banked[*who] += points;
                    assert_eq!(*score, banked[*who]);
                }
                Event::GameOver { winner } => {
                    let w = &s.players()[*winner];
                    assert!(w.score >= s.settings().target);
                    for (o, p) in s.players().iter().enumerate() {
                        if o != *winner {
                            assert!(w.score >= p.score + s.settings().overtime_lead);
                        }
                    }
                }
                _ => {}
            }
        }
        for (b, a) in before.iter().zip(s.players()) {
            assert!(a.score >= b.score, "scores never go down");
            assert_eq!(
                a.on_board,
                a.score > 0,
                "on board exactly when something is banked"
            );
        }
        for (seat, p) in s.players().iter().enumerate() {
            assert_eq!(p.score, banked[seat]);
        }
    }
    (actions, banked)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn whole_games_keep_invariants_and_replay(
        seed in any::<u64>(),
        players in 1usize..=4,
        kind in 0u8..2,
        jokers in 0u8..3,
        choices in proptest::collection::vec(any::<u16>(), 1..64),
    ) {
        let settings = settings(kind, jokers);
        let mut s = State::new(settings.clone(), players, seed).expect("valid setup");
        let (actions, _) = play(&mut s, &choices, 20_000);
        let record = GameRecord { settings, players, seed, actions };
        let replayed = record.replay().expect("the record replays");
        prop_assert!(replayed == s, "replay must give the same state");
    }

    #[test]
    fn illegal_actions_change_nothing(
        seed in any::<u64>(),
        mask in 0u8..32,
        steps in 0usize..40,
        choices in proptest::collection::vec(any::<u16>(), 1..16),
    ) {
        let mut s = State::new(Settings::standard(), 2, seed).expect("valid setup");
        play(&mut s, &choices, steps);
        for a in [Action::Roll, Action::Hold, Action::Keep(DiceMask(mask))] {
            let legal = s.legal_actions().contains(a);
            let mut t = s.clone();
            match t.apply(a) {
                Ok(_) => prop_assert!(legal, "{a} accepted but not listed"),
                Err(e) => {
                    prop_assert!(!legal, "{a} listed but refused: {e}");
                    prop_assert!(t == s, "a refused action changed the state");
                    prop_assert!(e.to_string().ends_with('.'), "sentence: {e}");
                }
            }
        }
    }

    #[test]
    fn turn_phase_matches_dice(seed in any::<u64>(), steps in 0usize..200, choices in proptest::collection::vec(any::<u16>(), 1..16)) {
        let mut s = State::new(Settings::blitz(), 3, seed).expect("valid setup");
        play(&mut s, &choices, steps);
        match s.phase() {
            Phase::Rolled => prop_assert!(s.turn().best_keep().is_some(), "a shown roll scores"),
            Phase::Start => prop_assert_eq!(s.turn().points, 0),
            Phase::Over => prop_assert!(s.winner().is_some()),
        }
    }
}

#[test]
fn random_games_finish() {
    let mut finished = 0;
    for seed in 0..40 {
        let mut s = State::new(Settings::blitz(), 2, seed).expect("valid setup");
        play(&mut s, &[1, 2, 3, 5, 8, 13], 50_000);
        finished += usize::from(s.winner().is_some());
    }
    assert_eq!(finished, 40);
}
