//! Plays one game search vs classic and prints the search's decisions.
use mille_ai::search::{Budget, search_stats};
use mille_ai::{Bot, ClassicBot, bot_action};
use mille_engine::view::Decision;
use mille_engine::{Action, GameConfig, Phase, State};

fn main() {
    let mut state = State::new(GameConfig::default(), 11).expect("state");
    let mut classic = ClassicBot::new(1);
    let mut steps = 0;
    while steps < 200 {
        match state.phase() {
            Phase::HandOver | Phase::GameOver => break,
            Phase::Turn { drawn: false, .. } => {
                state.apply(Action::Draw).expect("draw");
                continue;
            }
            Phase::Turn { seat: 0, .. } => {
                let view = state.view(0);
                let mut stats = search_stats(
                    &view,
                    Decision::Turn,
                    Budget {
                        iterations: 400,
                        trees: 1,
                        time_limit: None,
                    },
                    steps,
                );
                stats.sort_by_key(|s| std::cmp::Reverse(s.1));
                let me = &view.teams[0];
                let op = &view.teams[1];
                println!(
                    "hand {:?} me b{:?} s{:?} m{} | opp b{:?} s{:?} m{} deck {}",
                    view.hand.iter().map(|c| c.id()).collect::<Vec<_>>(),
                    me.battle.last(),
                    me.speed.last(),
                    me.miles(),
                    op.battle.last(),
                    op.speed.last(),
                    op.miles(),
                    view.deck
                );
                for (a, n, w) in stats.iter().take(4) {
                    println!("    {a:>20} {n:>5} {:.3}", w / f64::from((*n).max(1)));
                }
                state.apply(stats[0].0).expect("legal");
            }
            _ => {
                let seat = match state.phase() {
                    Phase::Turn { seat, .. }
                    | Phase::CoupFourre { seat, .. }
                    | Phase::Extension { seat } => seat,
                    _ => 0,
                };
                let a = if seat == 1 {
                    bot_action(&mut classic, &state)
                } else {
                    bot_action(&mut mille_ai::RandomBot::new(1), &state)
                };
                let a = a.expect("act");
                if seat == 1 {
                    println!("  classic: {a}");
                } else {
                    println!("  me (other): {a}");
                }
                state.apply(a).expect("legal");
            }
        }
        steps += 1;
    }
    println!("{:?}", state.last_scores());
    let _ = classic.name();
}
