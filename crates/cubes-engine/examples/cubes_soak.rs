//! The engine's soak: random turns of every kind of game (Standard, Blitz,
//! Jokers) for 1 to 6 players, every move through the checked path, the
//! invariants checked after every move; a panic is caught, counted and
//! reported with its kind of game and seed.
//!
//! `cargo run --release -p cubes-engine --example cubes_soak -- 1000000` plays a
//! million turns per kind of game and prints one line per kind and a total.

use cubes_engine::{JokerRule, Settings, State, ToAct};
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

/// More moves than a turn can take.
const MAX_STEPS: u32 = 10_000;

/// What is wrong with `state`, if anything.
fn invariants(state: &State, scores_before: &[u32]) -> Result<(), String> {
    for (seat, (p, &before)) in state.players().iter().zip(scores_before).enumerate() {
        if p.score < before {
            return Err(format!("seat {seat}'s score went down"));
        }
        if p.score > 0 && !p.on_board {
            return Err(format!("seat {seat} scored without getting on board"));
        }
    }
    let legal = state.legal_actions();
    match state.to_act() {
        ToAct::Seat(_) if legal.is_empty() => Err("a seat is to act with nothing legal".into()),
        ToAct::GameOver { .. } if !legal.is_empty() => Err("moves listed after the end".into()),
        _ => match legal.as_slice().iter().find(|&&a| state.check(a).is_err()) {
            Some(a) => Err(format!("{a} is listed but refused")),
            None => Ok(()),
        },
    }
}

/// Plays games of `settings` from `seed` until `turns` turns are played;
/// the turns played and the first broken invariant.
fn soak(settings: &Settings, turns: u64, seed: u64) -> (u64, Option<String>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut played = 0u64;
    let mut game = 0;
    while played < turns {
        game += 1;
        let players = 1 + (game % 6) as usize;
        let Ok(mut state) = State::new(settings.clone(), players, seed ^ game) else {
            return (played, Some("no game for these settings".into()));
        };
        let mut steps = 0;
        while let ToAct::Seat(_) = state.to_act() {
            let before: Vec<u32> = state.players().iter().map(|p| p.score).collect();
            let turns_before: u32 = state.players().iter().map(|p| p.turns).sum();
            let legal = state.legal_actions();
            let Some(&action) = legal
                .as_slice()
                .get(rng.next_u32() as usize % legal.len().max(1))
            else {
                return (played, Some("a seat is to act with nothing legal".into()));
            };
            if let Err(why) = state.apply(action) {
                return (played, Some(format!("listed {action} refused: {why}")));
            }
            if let Err(why) = invariants(&state, &before) {
                return (played, Some(why));
            }
            let turns_after: u32 = state.players().iter().map(|p| p.turns).sum();
            played += u64::from(turns_after - turns_before);
            steps += 1;
            if steps > MAX_STEPS * 100 {
                return (played, Some("a game did not end".into()));
            }
        }
    }
    (played, None)
}

fn main() {
    let turns: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    let kinds = [
        Settings::standard(),
        Settings::blitz(),
        Settings::standard().with_jokers(JokerRule::Always),
        Settings::blitz().with_jokers(JokerRule::OneGameInSix),
    ];
    let slices = 8u64;
    let start = Instant::now();
    let results: Vec<(String, u64, Vec<String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = kinds
            .iter()
            .map(|settings| {
                scope.spawn(move || {
                    let mut played = 0;
                    let mut failures = Vec::new();
                    for slice in 0..slices {
                        let n = turns / slices + u64::from(slice < turns % slices);
                        let seed = slice * 7_919 + 1;
                        match catch_unwind(AssertUnwindSafe(|| soak(settings, n, seed))) {
                            Ok((t, None)) => played += t,
                            Ok((t, Some(why))) => {
                                played += t;
                                failures.push(format!("seed {seed}: {why}"));
                            }
                            Err(_) => failures.push(format!("seed {seed}: panicked")),
                        }
                    }
                    let name = format!("{} {:?}", settings.name, settings.jokers);
                    (name, played, failures)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or(("?".into(), 0, vec!["thread lost".into()]))
            })
            .collect()
    });
    let mut all = 0;
    let mut broken = 0;
    for (name, played, failures) in &results {
        all += played;
        broken += failures.len();
        println!("{name:<24} {played:>9} turns, {} failures", failures.len());
        for f in failures {
            println!("  {f}");
        }
    }
    println!(
        "{all} turns, {broken} failures (panics or broken invariants), {:.1} s",
        start.elapsed().as_secs_f64()
    );
    if broken > 0 {
        std::process::exit(1);
    }
}
