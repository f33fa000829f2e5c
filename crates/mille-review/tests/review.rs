//! The review's verdicts on positions with a clear answer, its blindness
//! to the cards the seat could not know, and its robustness on random
//! games.

use mille_engine::{Action, Card, GameConfig, Phase, Scenario, State, ToAct};
use mille_review::{Mark, ReviewConfig, review_from, review_game};
use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

/// A budget small enough for a debug build, large enough for clear cases.
fn budget() -> ReviewConfig {
    ReviewConfig {
        iterations: 6000,
        trees: 2,
        seed: 7,
        beliefs: true,
    }
}

/// A position of the published rules built card by card, seat 0 to
/// decide: `hand` for seat 0, seat 1's hand and the draw pile dealt at
/// random (seeded) from the cards not placed.
fn dealt(build: impl Fn(Scenario) -> Scenario, seed: u64) -> State {
    let config = GameConfig::default();
    let rules = mille_engine::Rules::new(config).expect("config");
    let placed = build(Scenario::new(config).expect("config")).build();
    let mut left = Vec::new();
    for c in Card::ALL {
        for _ in placed.card_counts().get(c)..rules.deck[c as usize] {
            left.push(c);
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for i in (1..left.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        left.swap(i, j);
    }
    let (hand, deck) = left.split_at(6);
    build(Scenario::new(config).expect("config"))
        .hand(1, hand)
        .deck(deck)
        .build()
}

/// Seat 0, out of gas at the start of a hand, holds the last Gasoline:
/// the others and the Extra Tank are in the discard pile, so discarding it
/// leaves the side stopped for the whole hand. That is a blunder, and
/// playing it the best move.
#[test]
fn discarding_the_only_remedy_is_a_blunder_and_playing_it_is_best() {
    let rules = mille_engine::Rules::new(GameConfig::default()).expect("config");
    let me = rules.seat(0).expect("seat 0");
    let mut gone = vec![Card::Gasoline; usize::from(rules.deck[Card::Gasoline as usize]) - 1];
    gone.push(Card::ExtraTank);
    let start = dealt(
        |s| {
            s.hand(
                0,
                &[
                    Card::Gasoline,
                    Card::Go,
                    Card::D25,
                    Card::D50,
                    Card::D75,
                    Card::D100,
                    Card::D200,
                ],
            )
            .battle(0, &[Card::Go, Card::OutOfGas])
            .battle(1, &[Card::Go])
            .distance(1, &[Card::D100])
            .discards(&gone)
            .phase(Phase::Turn {
                seat: me,
                drawn: true,
            })
        },
        3,
    );
    let review = |action: Action| {
        review_from(&start, &[action], 0, &budget(), &mut |_, _| {})
            .expect("reviews")
            .decisions
            .remove(0)
    };
    let play = Action::Play {
        card: Card::Gasoline,
        team: 0,
    };
    let discard = review(Action::Discard(Card::Gasoline));
    eprintln!(
        "discard: loss {:.0} ± {:.0}, best {}",
        discard.loss, discard.stderr, discard.best
    );
    assert_eq!(discard.mark, Mark::Blunder, "{discard:?}");
    assert_eq!(discard.best, play, "{discard:?}");
    let played = review(play);
    assert_eq!(played.mark, Mark::Best, "{played:?}");
    assert_eq!(played.best, play);
    assert_eq!(played.loss, 0.0);
}

/// Declining a coup fourré gives up its 300 points for good (the safety
/// can still be played later, for its own 100): at least a mistake, and
/// calling it is the best move.
#[test]
fn declining_a_coup_fourre_is_a_blunder() {
    let rules = mille_engine::Rules::new(GameConfig::default()).expect("config");
    let me = rules.seat(0).expect("seat 0");
    let them = rules.seat(1).expect("seat 1");
    let start = dealt(
        |s| {
            s.hand(
                0,
                &[
                    Card::ExtraTank,
                    Card::D75,
                    Card::D50,
                    Card::D25,
                    Card::Stop,
                    Card::D100,
                ],
            )
            .battle(0, &[Card::Go, Card::OutOfGas])
            .battle(1, &[Card::Go])
            .distance(0, &[Card::D100, Card::D75])
            .distance(1, &[Card::D200, Card::D50])
            .phase(Phase::CoupFourre {
                seat: me,
                hazard: Card::OutOfGas,
                attacker: them,
            })
        },
        5,
    );
    let review = |action| {
        review_from(&start, &[action], 0, &budget(), &mut |_, _| {})
            .expect("reviews")
            .decisions
            .remove(0)
    };
    let declined = review(Action::DeclineCoupFourre);
    eprintln!(
        "decline: loss {:.0} ± {:.0}",
        declined.loss, declined.stderr
    );
    assert!(declined.mark >= Mark::Mistake, "{declined:?}");
    assert_eq!(declined.best, Action::CoupFourre(Card::ExtraTank));
    let called = review(Action::CoupFourre(Card::ExtraTank));
    assert_eq!(called.mark, Mark::Best, "{called:?}");
}

/// `state` rebuilt card by card, with seat 1's hand and the draw pile
/// (bottom first) given.
fn rebuilt(state: &State, seat1_hand: &[Card], deck: &[Card]) -> State {
    let rules = state.rules();
    let mut s = Scenario::new(rules.config).expect("config");
    for seat in rules.seats_iter() {
        let hand = if seat.number() == 1 {
            seat1_hand
        } else {
            state.hand(seat)
        };
        s = s.hand(seat.number(), hand);
    }
    for t in 0..rules.teams {
        let tab = state.tableau(t);
        s = s
            .battle(t, tab.battle.as_slice())
            .speed(t, tab.speed.as_slice())
            .distance(t, &tab.distance_cards().collect::<Vec<_>>())
            .safeties(t, &tab.safeties.cards().collect::<Vec<_>>(), false)
            .safeties(t, &tab.coups.cards().collect::<Vec<_>>(), true);
    }
    s.deck(deck)
        .discards(state.discards())
        .totals(state.totals())
        .phase(state.phase())
        .build()
}

/// Two deals that differ only in cards seat 0 could not know (seat 1's
/// hand and the draw pile, permuted among themselves, but for the cards
/// that the moves reviewed show it) give the same review with the same
/// seed.
#[test]
fn the_review_reads_no_hidden_card() {
    // Seat 1 to draw, mid-hand: it draws and plays (or discards) a card,
    // then seat 0 draws and decides.
    let game = mille_review::classic_game(GameConfig::default(), 3, None);
    let mut state = State::new(game.config, game.seed).expect("config");
    let seat = |n| state.rules().seat(n).expect("a seat");
    let (me, seat1) = (seat(0), seat(1));
    let mut at = None;
    for (i, &a) in game.actions.iter().enumerate() {
        if i > 20
            && state.phase()
                == (Phase::Turn {
                    seat: seat1,
                    drawn: false,
                })
            && state.deck_len() > 10
        {
            let mut s = state.clone();
            for &m in &game.actions[i..i + 2] {
                s.apply(m).expect("replays");
            }
            if s.phase()
                == (Phase::Turn {
                    seat: me,
                    drawn: false,
                })
            {
                at = Some(i);
                break;
            }
        }
        state.apply(a).expect("replays");
    }
    let at = at.expect("a turn of seat 1 then seat 0");
    let moves = &game.actions[at..at + 4];
    // The cards the moves show seat 0: seat 1's card and seat 0's draw
    // (the pile's second card from the top; seat 1 draws the top one).
    let shown = moves[1].card().expect("seat 1 plays a card");
    let deck = state.deck().to_vec();
    let (top, drawn_by_0) = (deck[deck.len() - 1], deck[deck.len() - 2]);
    let mut hidden: Vec<Card> = state.hand(seat1).to_vec();
    let pos = hidden.iter().position(|&c| c == shown).expect("in hand");
    hidden.remove(pos);
    hidden.extend_from_slice(&deck[..deck.len() - 2]);
    hidden.push(top);
    let deal = |h: &[Card]| {
        let n = state.hand(seat1).len() - 1;
        let mut hand = vec![shown];
        hand.extend_from_slice(&h[..n]);
        let rest = &h[n..];
        let mut pile = rest[..rest.len() - 1].to_vec();
        pile.push(drawn_by_0);
        pile.push(rest[rest.len() - 1]);
        rebuilt(&state, &hand, &pile)
    };
    // Another order of the hidden cards, the shown ones where they were.
    let mut other = hidden.clone();
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for i in (1..other.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        other.swap(i, j);
    }
    let (a, b) = (deal(&hidden), deal(&other));
    assert_ne!(a.hand(seat1), b.hand(seat1));
    assert_ne!(a.deck(), b.deck());
    assert_eq!(a.view(me), b.view(me));
    let config = ReviewConfig {
        iterations: 2000,
        trees: 2,
        seed: 11,
        beliefs: true,
    };
    let review = |s: &State| review_from(s, moves, 0, &config, &mut |_, _| {}).expect("reviews");
    let (ra, rb) = (review(&a), review(&b));
    assert_eq!(ra.decisions.len(), 1);
    assert!(ra.decisions[0].had_choice());
    assert_eq!(ra, rb);
}

/// Reviewing twice gives the same review.
#[test]
fn a_review_replays() {
    let record = mille_review::classic_game(GameConfig::default(), 4, Some(1));
    let config = ReviewConfig {
        iterations: 300,
        trees: 2,
        seed: 1,
        beliefs: true,
    };
    let a = review_game(&record, 1, &config).expect("reviews");
    let b = review_game(&record, 1, &config).expect("reviews");
    assert_eq!(a, b);
    assert!(!a.decisions.is_empty());
    assert_eq!(
        a.hands.iter().map(|h| h.decisions).sum::<usize>(),
        a.decisions.len()
    );
    let json = serde_json::to_string(&a).expect("serialises");
    let back: mille_review::GameReview = serde_json::from_str(&json).expect("reads back");
    assert_eq!(back.decisions.len(), a.decisions.len());
}

/// One thread or four, the same review; the progress counts every
/// decision and ends at the total.
#[test]
fn the_thread_count_changes_nothing_and_progress_reaches_the_end() {
    let record = mille_review::classic_game(GameConfig::default(), 6, Some(1));
    let config = ReviewConfig {
        iterations: 300,
        trees: 2,
        seed: 3,
        beliefs: true,
    };
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool");
        pool.install(|| {
            let mut seen = Vec::new();
            let review =
                mille_review::review_game_with_progress(&record, 0, &config, &mut |d, t| {
                    seen.push((d, t))
                })
                .expect("reviews");
            (review, seen)
        })
    };
    let (one, progress) = run(1);
    let (four, _) = run(4);
    assert_eq!(one, four);
    let total = one.decisions.len();
    assert_eq!(progress.first(), Some(&(0, total)));
    assert_eq!(progress.last(), Some(&(total, total)));
    assert!(progress.windows(2).all(|w| w[0].0 <= w[1].0));
}

#[test]
fn a_seat_not_at_the_table_is_refused() {
    let record = mille_review::classic_game(GameConfig::default(), 4, Some(1));
    assert!(review_game(&record, 2, &budget()).is_err());
}

fn finished(state: &State) -> bool {
    matches!(state.to_act(), ToAct::Deal | ToAct::GameOver)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    /// Random games (2 to 4 players, every ruleset) are reviewed for any
    /// seat without a panic, every decision with a legal best move.
    #[test]
    fn random_games_are_reviewed(seed in 0u64..1000, players in 2u8..=4, rules in 0usize..3, seat in 0u8..4) {
        let rules = [
            mille_engine::RulesetId::Bsd,
            mille_engine::RulesetId::Classic,
            mille_engine::RulesetId::Milebones,
        ][rules];
        // Only the classic rules seat more than two.
        let rules = if players > 2 { mille_engine::RulesetId::Classic } else { rules };
        let config = GameConfig { rules, players, stacking: false };
        let record = mille_review::classic_game(config, seed, Some(2));
        let state = record.replay().expect("replays");
        prop_assert!(finished(&state) || !record.actions.is_empty());
        let small = ReviewConfig { iterations: 60, trees: 1, seed, beliefs: seed % 2 == 0 };
        match review_game(&record, seat, &small) {
            Ok(review) => {
                prop_assert!(seat < players);
                for d in &review.decisions {
                    prop_assert!(d.moves.iter().any(|m| m.action == d.best));
                    prop_assert!(d.loss >= 0.0);
                }
                prop_assert!(review.worst.len() <= 3);
            }
            Err(_) => prop_assert!(seat >= players),
        }
    }
}
