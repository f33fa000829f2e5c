//! The engine's soak: random hands of every ruleset and seat count, every
//! move through the checked path, every invariant checked after every
//! move; a panic is caught, counted and reported with its configuration
//! and seed.
//!
//! `cargo run --release -p mille-engine --example mille_soak -- 1000000` plays a
//! million hands (split evenly over the configurations, on every core) and
//! prints one line per configuration and a total.

use mille_engine::{Action, ActionList, GameConfig, Phase, Rules, State, ToAct};
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

/// More moves than any hand can take: a hand still going is a bug.
const MAX_STEPS: u32 = 5_000;

/// What is wrong with `state`, if anything.
fn invariants(state: &State, rules: &Rules, list: &mut ActionList) -> Result<(), String> {
    let counts = state.card_counts();
    if counts.0 != rules.deck {
        return Err(format!("cards not conserved: {:?}", counts.0));
    }
    let mut recount = mille_engine::CardCounts::default();
    recount.add_all(state.discards().iter().copied());
    if &recount != state.discard_counts() {
        return Err("the discard pile's running count drifted".into());
    }
    for seat in rules.seats_iter() {
        if state.hand(seat).len() > usize::from(rules.hand_size) + 1 {
            return Err(format!(
                "seat {seat} holds {} cards",
                state.hand(seat).len()
            ));
        }
    }
    state.legal_actions(list);
    match state.to_act() {
        ToAct::Seat(_) if list.is_empty() => Err("a seat is to act with nothing legal".into()),
        _ => match list.iter().find(|&&a| state.check(a).is_err()) {
            Some(a) => Err(format!("{a} is listed but refused")),
            None => Ok(()),
        },
    }
}

/// Plays `hands` hands of `config` from `seed`; the hands played and the
/// first broken invariant.
fn soak(config: GameConfig, hands: u64, seed: u64) -> (u64, Option<String>) {
    let Ok(rules) = Rules::new(config) else {
        return (0, Some("the configuration does not resolve".into()));
    };
    let Ok(mut state) = State::new(config, seed) else {
        return (0, Some("no game for the configuration".into()));
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x50AC);
    let mut list = ActionList::default();
    for hand in 0..hands {
        let before: u32 = state.totals().iter().sum();
        let mut steps = 0;
        while let ToAct::Seat(_) = state.to_act() {
            if let Err(why) = invariants(&state, &rules, &mut list) {
                return (hand, Some(why));
            }
            let action = list[rng.next_u32() as usize % list.len()];
            if let Err(why) = state.apply(action) {
                return (hand, Some(format!("listed {action} refused: {why}")));
            }
            steps += 1;
            if steps > MAX_STEPS {
                return (hand, Some("a hand did not end".into()));
            }
        }
        let scored: u32 = state
            .last_scores()
            .map_or(0, |s| s.iter().map(|h| u32::from(h.total())).sum());
        let after: u32 = state.totals().iter().sum();
        if state.phase() == Phase::HandOver && after != before + scored {
            return (hand, Some(format!("totals {before} + {scored} != {after}")));
        }
        let next = if state.phase() == Phase::GameOver {
            Action::NextGame
        } else {
            Action::NextHand
        };
        if let Err(why) = state.apply(next) {
            return (hand, Some(format!("{next} refused: {why}")));
        }
    }
    (hands, None)
}

fn main() {
    let total: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    let configs: Vec<GameConfig> = GameConfig::every().collect();
    let per = total.div_ceil(configs.len() as u64);
    // Each configuration in slices, so that every core has work.
    let slices = 16u64;
    let start = Instant::now();
    let results: Vec<(GameConfig, u64, Vec<String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = configs
            .iter()
            .map(|&config| {
                scope.spawn(move || {
                    let mut played = 0;
                    let mut failures = Vec::new();
                    for slice in 0..slices {
                        let hands = per / slices + u64::from(slice < per % slices);
                        let seed = slice * 1_000_003 + u64::from(config.players);
                        match catch_unwind(AssertUnwindSafe(|| soak(config, hands, seed))) {
                            Ok((n, None)) => played += n,
                            Ok((n, Some(why))) => {
                                played += n;
                                failures.push(format!("seed {seed}: {why}"));
                            }
                            Err(_) => failures.push(format!("seed {seed}: panicked")),
                        }
                    }
                    (config, played, failures)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or((GameConfig::default(), 0, vec!["thread lost".into()]))
            })
            .collect()
    });
    let mut hands = 0;
    let mut broken = 0;
    for (config, played, failures) in &results {
        hands += played;
        broken += failures.len();
        println!(
            "{:<9} {} players{:<10} {played:>9} hands, {} failures",
            config.rules.id(),
            config.players,
            if config.stacking { ", stacking" } else { "" },
            failures.len()
        );
        for f in failures {
            println!("  {f}");
        }
    }
    println!(
        "{hands} hands, {broken} failures (panics or broken invariants), {:.1} s",
        start.elapsed().as_secs_f64()
    );
    if broken > 0 {
        std::process::exit(1);
    }
}
