//! Every bot returns a legal action in thousands of random positions of
//! every ruleset and seat count, from full views and from partial ones
//! (only the top of each pile, most discards unknown).

use game_table::{Player, SeatInfo, Step, Table};
use mille_ai::{Budget, ClassicBot, MilleBot, RandomBot, SearchBot, bot_action};
use mille_engine::view::Decision;
use mille_engine::{
    Action, GameConfig, Mille, Observation, Phase, RulesetId, Seat, State, ToAct, View,
};

/// What `bot` plays in `state` (the seat to act's turn).
fn act(bot: &mut MilleBot, state: &State) -> Action {
    bot_action(bot, state)
        .expect("a seat acts")
        .expect("a built-in bot answers")
}

fn configs() -> Vec<GameConfig> {
    let mut v = Vec::new();
    for (rules, players) in [
        (RulesetId::Bsd, 2),
        (RulesetId::Milebones, 2),
        (RulesetId::Classic, 2),
        (RulesetId::Classic, 3),
        (RulesetId::Classic, 4),
        (RulesetId::Classic, 6),
    ] {
        v.push(GameConfig {
            rules,
            players,
            stacking: false,
        });
    }
    v.push(GameConfig {
        rules: RulesetId::Classic,
        players: 4,
        stacking: true,
    });
    v
}

/// What a seat would see from a careless sender: only the top of each pile
/// and the last two discards.
fn partial(mut v: View) -> View {
    for t in &mut v.teams {
        if t.battle.len() > 1 {
            t.battle.drain(..t.battle.len() - 1);
        }
        if t.speed.len() > 1 {
            t.speed.drain(..t.speed.len() - 1);
        }
    }
    if v.discards.len() > 2 {
        v.discards.drain(..v.discards.len() - 2);
    }
    v
}

fn decision_of(state: &State) -> Option<(Seat, Decision)> {
    match state.phase() {
        Phase::Turn { seat, drawn: true } => Some((seat, Decision::Turn)),
        Phase::CoupFourre {
            seat,
            hazard,
            attacker,
        } => Some((
            seat,
            Decision::CoupFourre {
                hazard,
                attacker: attacker.number(),
            },
        )),
        Phase::Extension { seat } => Some((seat, Decision::Extension)),
        _ => None,
    }
}

#[test]
fn every_bot_answers_legally_everywhere() {
    let tiny = Budget {
        iterations: 16,
        trees: 1,
        time_limit: None,
    };
    let mut checked = 0;
    for (ci, config) in configs().into_iter().enumerate() {
        let mut state = State::new(config, 100 + ci as u64).expect("config");
        let mut driver = RandomBot::new(ci as u64);
        let mut classic = ClassicBot::new(1);
        let mut random = RandomBot::new(2);
        let mut search = SearchBot::new("test", tiny, 3);
        let mut positions = 0;
        for step in 0..20_000 {
            if positions >= 500 {
                break;
            }
            match state.to_act() {
                ToAct::GameOver => {
                    state.apply(Action::NextGame).expect("next game");
                    continue;
                }
                ToAct::Deal => {
                    state.apply(Action::NextHand).expect("deal");
                    continue;
                }
                ToAct::Seat(_) => {}
            }
            if let Some((seat, decision)) = decision_of(&state) {
                positions += 1;
                let full = state.view(seat);
                let views = [full.clone(), partial(full)];
                for (vi, view) in views.iter().enumerate() {
                    let mut bots: Vec<&mut MilleBot> = vec![&mut classic, &mut random];
                    // The search is slow in debug builds: every 7th position.
                    if step % 7 == 0 {
                        bots.push(&mut search);
                    }
                    for bot in bots {
                        let asked = Observation::from_view(view.clone(), decision, Vec::new());
                        let a = bot.decide(&asked).expect("a built-in bot answers");
                        assert!(
                            state.check(a).is_ok(),
                            "{config:?} view {vi}: {} played {a} ({:?}) in {:?}",
                            bot.name(),
                            state.check(a),
                            view
                        );
                        checked += 1;
                    }
                }
            }
            let a = act(&mut driver, &state);
            state.apply(a).expect("driver is legal");
        }
        assert!(positions >= 500, "{config:?}: only {positions} positions");
    }
    assert!(checked > 5000, "{checked}");
}

#[test]
fn a_seeded_search_replays() {
    let mut state = State::new(GameConfig::default(), 8).expect("state");
    state.apply(Action::Draw).expect("draw");
    let view = state.view(state.rules().seat(0).expect("seat 0"));
    for trees in [1, 2] {
        let budget = Budget {
            iterations: 64,
            trees,
            time_limit: None,
        };
        let a: Vec<Action> = (0..3)
            .map(|_| SearchBot::new("a", budget, 42).choose(&view, Decision::Turn))
            .collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]), "{a:?}");
    }
}

/// A search that watches every move it may see (and so samples from its
/// beliefs) still answers legally, in every ruleset and seat count, among
/// random players whose moves its classic model rarely explains.
#[test]
fn a_watching_search_answers_legally() {
    let tiny = Budget {
        iterations: 8,
        trees: 1,
        time_limit: None,
    };
    for (ci, config) in configs().into_iter().enumerate() {
        let state = State::new(config, 300 + ci as u64).expect("config");
        let seats = (0..config.players)
            .map(|seat| -> (SeatInfo, Player<Mille>) {
                let bot: Box<MilleBot> = if seat == 0 {
                    Box::new(SearchBot::new("test", tiny, 5))
                } else {
                    Box::new(RandomBot::new(ci as u64 + u64::from(seat)))
                };
                (SeatInfo::computer(bot.name(), bot.name()), Player::Bot(bot))
            })
            .collect();
        // The table shows the search every move its seat may see, and
        // refuses any illegal move with an error.
        let mut table = Table::<Mille>::new(state, seats);
        let mut decisions = 0;
        for _ in 0..120 {
            match table.step() {
                Ok(Step::Moved { seat: 0, action }) if action != Action::Draw => decisions += 1,
                Ok(Step::Moved { .. }) => {}
                Ok(_) => break,
                Err(e) => panic!("{config:?}: {e}"),
            }
        }
        assert!(decisions >= 5, "{config:?}: only {decisions} decisions");
    }
}
