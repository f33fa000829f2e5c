//! The search's hot path on its own: the parts of one play-out step (legal
//! moves, applying a move, the knowledge the classic bot builds, one
//! classic decision, drawing a determinization) over a fixed set of
//! positions, and whole play-out hands from fixed deals (2-player `bsd`,
//! 4-player `classic`) with the classic bot in every seat, as the search
//! plays them. Criterion's time is that of the whole set; its throughput
//! (elements: positions or hands) gives the figure of one. The positions
//! are real states of classic self-play, which is what a play-out meets:
//! a determinized state played on.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mille_ai::ClassicBot;
use mille_ai::knowledge::Knowledge;
use mille_engine::view::{Decision, determinize_for};
use mille_engine::{Action, ActionList, GameConfig, Phase, RulesetId, Seat, State, ToAct, View};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use std::hint::black_box;
use std::time::Duration;

/// Four players in two teams, the classic rules.
const FOUR_CLASSIC: GameConfig = GameConfig {
    rules: RulesetId::Classic,
    players: 4,
    stacking: false,
};

/// Every turn decision (after the draw) of the first hand of deals
/// `0..deals` of `config`, with the seat to decide and the classic move
/// made there, all seats played by the classic bot: the positions a
/// play-out passes through.
fn positions(config: GameConfig, deals: u64) -> Vec<(State, Seat, Action)> {
    let mut out = Vec::new();
    for deal in 0..deals {
        let mut state = State::new(config, deal).expect("config");
        let mut bots: Vec<ClassicBot> = (0..config.players)
            .map(|s| ClassicBot::new(deal * 8 + u64::from(s)))
            .collect();
        while let ToAct::Seat(seat) = state.to_act() {
            let action = bots[seat.index()].decide_state(&state, seat);
            if matches!(state.phase(), Phase::Turn { drawn: true, .. }) {
                out.push((state.clone(), seat, action));
            }
            state.apply_unchecked(action);
        }
    }
    out
}

/// One play-out hand from `start`: the classic bot in every seat until
/// the hand is over (as the search's `rollout`, from the deal). Returns
/// the number of actions.
fn play_hand(start: &State, bots: &mut [ClassicBot]) -> u32 {
    let mut state = start.clone();
    let mut n = 0;
    while let ToAct::Seat(seat) = state.to_act() {
        let a = bots[seat.index()].decide_state(&state, seat);
        state.apply_unchecked(a);
        n += 1;
    }
    n
}

fn steps(c: &mut Criterion) {
    let set = positions(GameConfig::default(), 20);
    let n = set.len() as u64;
    let mut group = c.benchmark_group("playout_step/bsd2");
    group
        .throughput(Throughput::Elements(n))
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("legal_actions", |b| {
        let mut list = ActionList::default();
        b.iter(|| {
            for (state, _, _) in &set {
                state.legal_actions(&mut list);
                black_box(list.len());
            }
        })
    });
    group.bench_function("clone", |b| {
        b.iter(|| {
            for (state, _, _) in &set {
                black_box(state.clone());
            }
        })
    });
    // The copy is part of the figure: `clone` alone is measured above.
    group.bench_function("clone_apply", |b| {
        b.iter(|| {
            for (state, _, action) in &set {
                let mut s = state.clone();
                black_box(s.apply_unchecked(*action));
            }
        })
    });
    group.bench_function("knowledge", |b| {
        b.iter(|| {
            for (state, seat, _) in &set {
                let k = Knowledge::new(state, *seat);
                black_box(k.unseen(mille_engine::Card::Stop));
            }
        })
    });
    group.bench_function("classic_decision", |b| {
        let mut bot = ClassicBot::new(3);
        b.iter(|| {
            for (state, seat, _) in &set {
                black_box(bot.decide_state(state, *seat));
            }
        })
    });
    group.finish();

    // A determinization: the search draws one per sample.
    let views: Vec<View> = set
        .iter()
        .step_by(8)
        .map(|(state, seat, _)| state.view(*seat))
        .collect();
    let mut group = c.benchmark_group("playout_sample/bsd2");
    group
        .throughput(Throughput::Elements(views.len() as u64))
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("determinize", |b| {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        b.iter(|| {
            for v in &views {
                black_box(determinize_for(v, Decision::Turn, &mut rng).ok());
            }
        })
    });
    group.finish();
}

fn hands(c: &mut Criterion) {
    for (name, config) in [("bsd2", GameConfig::default()), ("classic4", FOUR_CLASSIC)] {
        let bots: Vec<ClassicBot> = (0..u64::from(config.players))
            .map(ClassicBot::new)
            .collect();
        // One fixed deal (11: a short hand of 81 actions at 2 players, 85
        // at 4), and sixteen deals in turn (0..16): one hand played again
        // and again runs faster per action than play-outs, which never
        // repeat a hand (the branch predictor learns it).
        let one = [State::new(config, 11).expect("config")];
        let sixteen: Vec<State> = (0..16)
            .map(|d| State::new(config, d).expect("config"))
            .collect();
        let mut group = c.benchmark_group(format!("playout_hand/{name}"));
        group
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(4));
        for (label, deals) in [("deal11", &one[..]), ("deals0to15", &sixteen[..])] {
            group.throughput(Throughput::Elements(deals.len() as u64));
            group.bench_function(label, |b| {
                // The same bots (memory and random draws) for every hand;
                // their copy (a few hundred bytes) is timed with the hand.
                b.iter(|| {
                    for start in deals {
                        black_box(play_hand(start, &mut bots.clone()));
                    }
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, steps, hands);
criterion_main!(benches);
