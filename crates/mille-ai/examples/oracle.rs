//! A low-noise tuning harness: grades single decisions instead of whole
//! hands. `classic` plays both seats of 2-player `bsd` hands; at each of
//! seat 0's decisions with a choice, each bot under test (having watched
//! the hand so far) says what it would play, and every move chosen is
//! valued by playing the hand out many times with `classic` at both seats
//! from the *true* hands (only the draw pile, which nobody has seen, is
//! reshuffled, the same reshuffles for every move). A bot's grade is the
//! points a hand its moves gain over `classic`'s. Only the decisions where
//! a bot departs from `classic` count, and every move is valued on the
//! same reshuffles, so this sees differences that whole hands drown in the
//! luck of the deal: comparing two variants on the same 100 hands, the
//! standard error of their difference is typically 10 to 20 points a hand,
//! against about 33 over 300 deals of whole hands.
//!
//! Limits: it grades one decision at a time with `classic` playing on, so
//! it does not credit a move that only pays off through later good play;
//! it grades seat 0 (who plays first) in the first hand of a game (totals
//! 0 to 0), by the hand's margin, where the search weighs its chance to
//! win the game too; and the bots run without their time caps.
//!
//! ```sh
//! cargo run --release -p mille-ai --example oracle -- 100 2 256 normal hard
//! DUMP=/tmp/a.txt cargo run --release -p mille-ai --example oracle -- 100 2 256 normal
//! ```
//! Arguments: hands, seed, reshuffles per move, then the bots (a level,
//! its time cap off, `search:N`, N iterations on 2 trees, or `sharpened`,
//! the classic procedure with the search's sharpened weights). With
//! `DUMP=file`, each hand's gain per bot is written there, one line per
//! hand, to compare runs (builds) hand by hand: the positions follow
//! `classic`'s play, which no variant changes. With `ALL=1` every legal
//! move is valued, which also prints what always playing the best move
//! (told the hands) would gain. Not part of the product.

#[path = "shared/spec.rs"]
mod spec;

use mille_ai::{ClassicBot, Level, MilleBot, SearchBot, bot_action, observation};
use mille_engine::view::{Decision, determinize_at};
use mille_engine::{Action, ActionList, GameConfig, Phase, Seat, State, ToAct};
use rand_core::SeedableRng;
use rayon::prelude::*;
use std::time::Instant;

/// Seat 0, the seat whose decisions are graded.
fn seat0(state: &State) -> Seat {
    state.rules().seat(0).expect("every table has a seat 0")
}

#[derive(Clone)]
enum Player {
    Classic(Box<ClassicBot>),
    Search(Box<SearchBot>),
}

impl Player {
    fn bot(&mut self) -> &mut MilleBot {
        match self {
            Player::Classic(b) => b.as_mut(),
            Player::Search(b) => b.as_mut(),
        }
    }
}

fn make(spec: &str, seed: u64) -> Result<Player, String> {
    if let Some(budget) = spec::search_budget(spec) {
        return Ok(Player::Search(Box::new(SearchBot::new(
            spec, budget?, seed,
        ))));
    }
    match spec {
        "sharpened" => Ok(Player::Classic(Box::new(ClassicBot::sharpened(seed)))),
        "classic" => Ok(Player::Classic(Box::new(ClassicBot::new(seed)))),
        _ => Err(match spec.parse::<Level>() {
            Ok(_) => format!("`{spec}`: not a level this harness grades"),
            Err(e) => e.to_string(),
        }),
    }
}

/// Seat 0's points minus seat 1's in the hand played out from `state`
/// after `action`, `classic` at both seats (from `players`' memories).
fn value(
    state: &State,
    decision: Decision,
    action: Action,
    players: &[ClassicBot; 2],
    reshuffles: u64,
    seed: u64,
) -> f64 {
    let view = state.view(seat0(state));
    let hands: Vec<Vec<_>> = state
        .rules()
        .seats_iter()
        .map(|s| state.hand(s).to_vec())
        .collect();
    let mut total = 0.0;
    for k in 0..reshuffles {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ k.wrapping_mul(0x9E37));
        let Ok(mut s) = determinize_at(&view, 0, decision, &hands, &mut rng) else {
            continue;
        };
        let mut bots = [players[0].reseeded(k), players[1].reseeded(k + 7)];
        s.apply_unchecked(action);
        // The guard only matters for a broken state; a hand is far shorter.
        for _ in 0..2000 {
            let ToAct::Seat(seat) = s.to_act() else { break };
            let a = bots[seat.index()].decide_state(&s, seat);
            s.apply_unchecked(a);
        }
        if let Some(sc) = s.last_scores() {
            total += f64::from(sc[0].total()) - f64::from(sc[1].total());
        }
    }
    total / reshuffles as f64
}

/// Per bot: gain over classic summed over the hand, decisions graded,
/// best found, departures from classic.
type Grades = Vec<(f64, u32, u32, u32)>;

fn grade_hand(specs: &[String], deal: u64, reshuffles: u64, all_moves: bool) -> (Grades, f64) {
    let mut state = State::new(GameConfig::default(), deal).expect("config");
    let seed2 = deal.wrapping_mul(2);
    let mut table = [
        ClassicBot::new(seed2.wrapping_add(1)),
        ClassicBot::new(seed2.wrapping_add(2)),
    ];
    let mut players: Vec<Player> = specs
        .iter()
        .map(|s| make(s, deal.wrapping_mul(31).wrapping_add(5)).expect("checked"))
        .collect();
    let mut grades: Grades = vec![(0.0, 0, 0, 0); specs.len()];
    let mut best_gain = 0.0;
    let mut legal = ActionList::default();
    while let ToAct::Seat(s) = state.to_act() {
        let decision = match state.phase() {
            Phase::Turn { drawn: true, .. } => Some(Decision::Turn),
            Phase::CoupFourre {
                hazard, attacker, ..
            } => Some(Decision::CoupFourre {
                hazard,
                attacker: attacker.number(),
            }),
            Phase::Extension { .. } => Some(Decision::Extension),
            _ => None,
        };
        state.legal_actions(&mut legal);
        let classic_move = bot_action(&mut table[s.index()], &state)
            .and_then(Result::ok)
            .expect("acts");
        if s.number() == 0
            && let Some(decision) = decision
            && legal.len() > 1
        {
            let seed = deal.wrapping_mul(1_000_003) ^ state.deck_len() as u64;
            // Each bot decides on a copy, so its generator does not move on:
            // every decision of a hand searches from the same seed, alike for
            // every variant compared.
            let chosen: Vec<Action> = players
                .iter()
                .map(|p| {
                    let mut p = p.clone();
                    p.bot().decide(&observation(&state, s)).expect("decides")
                })
                .collect();
            if let Some(bad) = chosen.iter().find(|a| !legal.contains(a)) {
                panic!("a bot chose the illegal {bad:?}");
            }
            // Every legal move when asked (for the told-the-hands ceiling),
            // else only the moves some bot chose.
            let candidates: Vec<Action> = if all_moves {
                legal.iter().copied().collect()
            } else {
                let mut c = vec![classic_move];
                for &a in &chosen {
                    if !c.contains(&a) {
                        c.push(a);
                    }
                }
                c
            };
            let values: Vec<(Action, f64)> = candidates
                .iter()
                .map(|&a| (a, value(&state, decision, a, &table, reshuffles, seed)))
                .collect();
            let v = |a: Action| {
                values
                    .iter()
                    .find(|x| x.0 == a)
                    .map(|x| x.1)
                    .unwrap_or(f64::NAN)
            };
            let best = values.iter().map(|x| x.1).fold(f64::MIN, f64::max);
            let base = v(classic_move);
            best_gain += best - base;
            for (i, &a) in chosen.iter().enumerate() {
                let g = &mut grades[i];
                g.0 += v(a) - base;
                g.1 += 1;
                g.2 += u32::from(v(a) >= best - 1e-9);
                g.3 += u32::from(a != classic_move);
            }
        }
        for p in &mut players {
            if mille_engine::seen_by(0, s.number(), classic_move) {
                p.bot().watch(
                    &observation(&state, seat0(&state)),
                    Some(usize::from(s)),
                    classic_move,
                );
            }
        }
        state.apply(classic_move).expect("legal");
    }
    (grades, best_gain)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: u64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let (hands, seed, reshuffles) = (num(0, 100), num(1, 1), num(2, 64).max(1));
    let specs: Vec<String> = args.iter().skip(3).cloned().collect();
    for s in &specs {
        if let Err(e) = make(s, 0) {
            eprintln!("oracle: {e}");
            std::process::exit(2);
        }
    }
    let all_moves = std::env::var("ALL").is_ok();
    let start = Instant::now();
    let results: Vec<(Grades, f64)> = (0..hands)
        .into_par_iter()
        .map(|h| {
            grade_hand(
                &specs,
                seed.wrapping_mul(7919).wrapping_add(h),
                reshuffles,
                all_moves,
            )
        })
        .collect();
    println!(
        "{hands} hands, {reshuffles} reshuffles a move, {:.0}s",
        start.elapsed().as_secs_f64()
    );
    let best: Vec<f64> = results.iter().map(|r| r.1).collect();
    let (m, se) = mean_se(&best);
    if all_moves {
        println!("best move every time (told the hands): {m:+.1} +- {se:.1} pts/hand over classic");
    }
    for (i, spec) in specs.iter().enumerate() {
        let gains: Vec<f64> = results.iter().map(|r| r.0[i].0).collect();
        let (m, se) = mean_se(&gains);
        let graded: u32 = results.iter().map(|r| r.0[i].1).sum();
        let found: u32 = results.iter().map(|r| r.0[i].2).sum();
        let departed: u32 = results.iter().map(|r| r.0[i].3).sum();
        println!(
            "{spec:>14}: {m:+.1} +- {se:.1} pts/hand over classic; best of the moves valued {:.1}%; departs from classic {:.1}% of {graded}",
            100.0 * f64::from(found) / f64::from(graded.max(1)),
            100.0 * f64::from(departed) / f64::from(graded.max(1)),
        );
    }
    if let Ok(path) = std::env::var("DUMP") {
        let text: String = results
            .iter()
            .map(|r| {
                let row: Vec<String> = r.0.iter().map(|g| format!("{}", g.0)).collect();
                row.join(" ") + "\n"
            })
            .collect();
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("oracle: could not write {path}: {e}");
        }
    }
    for i in 1..specs.len() {
        let d: Vec<f64> = results.iter().map(|r| r.0[i].0 - r.0[0].0).collect();
        let (m, se) = mean_se(&d);
        println!(
            "{:>14} - {}: {m:+.1} +- {se:.1} pts/hand (paired)",
            specs[i], specs[0]
        );
    }
}

fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (m, (var / n).sqrt())
}
