//! The optimal player against its own table: on a small game (target 1,500,
//! solved in a moment) the simulated first-player win rate of optimal
//! against optimal must match the solved `W(0, 0)`, and optimal must beat
//! every personality. A decision bug (for instance valuing a keep as if the
//! turn could still be banked, although a keep commits to rolling) shows up
//! as a gap between the two.

use cubes_ai::sim::{BoxedBot, run_match};
use cubes_ai::{Brain, OptimalBot, Personality};
use cubes_engine::{Cubes, Settings};
use game_table::{Player, SeatInfo, Step, Table};

fn small() -> Settings {
    Settings {
        name: "Small".into(),
        target: 1_500,
        ..Settings::standard()
    }
}

#[test]
fn simulated_first_player_rate_matches_the_table() {
    let settings = small();
    let w00 = Brain::get(&settings, false).win_probability(0, 0);
    assert!(w00 > 0.5 && w00 < 0.75, "{w00}");
    let games = 20_000;
    let r = run_match(
        &settings,
        games,
        7,
        || Box::new(OptimalBot::default()) as BoxedBot,
        || Box::new(OptimalBot::new("Other")) as BoxedBot,
    )
    .expect("legal bots");
    let rate = r.first_rate();
    let sigma = (w00 * (1.0 - w00) / games as f64).sqrt();
    assert!(
        (rate - w00).abs() < 4.0 * sigma,
        "simulated {rate:.4} vs table {w00:.4} (sigma {sigma:.4})"
    );
}

#[test]
fn optimal_beats_every_personality() {
    let settings = small();
    for p in Personality::all() {
        let r = run_match(
            &settings,
            3_000,
            11,
            || Box::new(OptimalBot::default()) as BoxedBot,
            || Box::new(p.clone()) as BoxedBot,
        )
        .expect("legal bots");
        let rate = r.a_rate();
        assert!(rate - r.ci95(rate) > 0.5, "{}: {rate:.3}", p.name);
    }
}

/// Bellman consistency between the optimal player's values and the engine:
/// the value it gives a keep must be the average, over every outcome of the
/// dice it then rolls (as the engine rolls and scores them), of the best
/// value of the next decision (a bust being worth the opponent's loss).
/// This ties the solver's turn model to the engine's rules and catches a
/// player that values a keep as if it could still bank.
#[test]
fn keep_values_are_the_average_of_what_the_engine_rolls_next() {
    use cubes_ai::optimal::action_values;
    use cubes_engine::{Action, DieState, Face, Phase, State};

    let settings = Settings::standard();
    let brain = Brain::get(&settings, false);
    let mut checked = 0;
    for seed in 0..12u64 {
        let state = State::new(settings.clone(), 2, seed).expect("game");
        let seats: Vec<(SeatInfo, Player<Cubes>)> = vec![
            (
                SeatInfo::computer("Olga", "optimal"),
                Player::Bot(Box::new(OptimalBot::default())),
            ),
            (
                SeatInfo::computer("Bella", "bold"),
                Player::Bot(Box::new(Personality::bold())),
            ),
        ];
        let mut table = Table::<Cubes>::new(state, seats);
        let mut steps = 0;
        while let game_table::Turn::Seat(seat) = table.turn() {
            steps += 1;
            if steps > 5_000 {
                break;
            }
            let s = table.state().clone();
            let view = s.view(seat);
            if seat == 0 && view.phase == Phase::Rolled && steps % 3 == 0 {
                let me = view.players[0].score;
                let opp = view.players[1].score;
                for (a, v) in action_values(&view) {
                    let Action::Keep(mask) = a else { continue };
                    let rolling: Vec<usize> = (0..5)
                        .filter(|&p| view.turn.states[p] == DieState::Rolled && !mask.contains(p))
                        .collect();
                    if rolling.is_empty() || rolling.len() > 3 {
                        continue; // five fresh dice: 7776 outcomes, too slow here
                    }
                    let n = rolling.len();
                    let mut total = 0.0;
                    for code in 0..6usize.pow(n as u32) {
                        let mut faces = view.turn.dice;
                        for (k, &p) in rolling.iter().enumerate() {
                            faces[p] = Face::ALL[code / 6usize.pow(k as u32) % 6];
                        }
                        let mut next = s.clone();
                        next.apply_with_dice(a, faces).expect("legal keep");
                        let value = if next.current() == 0 && next.phase() == Phase::Rolled {
                            action_values(&next.view(0))
                                .into_iter()
                                .map(|(_, x)| x)
                                .fold(f64::NEG_INFINITY, f64::max)
                        } else {
                            // Bust: the opponent moves with the scores unchanged.
                            1.0 - brain.win_probability(opp, me)
                        };
                        total += value;
                    }
                    let avg = total / 6f64.powi(n as i32);
                    assert!(
                        (v - avg).abs() < 2e-5,
                        "keep {mask:?} valued {v:.6}, next rolls average {avg:.6}"
                    );
                    checked += 1;
                }
            }
            assert!(
                matches!(table.step(), Ok(Step::Moved { .. })),
                "the bots play legal moves"
            );
        }
    }
    assert!(checked > 50, "checked {checked} keeps");
}

/// With three players Optimal Olga maximises expected points (and plays the
/// two-player optimum against the leader in the end game): she must still
/// win clearly more than her third of the games.
#[test]
fn optimal_wins_more_than_its_share_with_three_players() {
    use cubes_ai::sim::play_game;
    let settings = Settings::blitz();
    let games = 600u64;
    let mut wins = 0;
    for g in 0..games {
        // Rotate the seats so nobody always starts.
        let seat = (g % 3) as usize;
        let mut seats: Vec<BoxedBot> = vec![
            Box::new(Personality::steady()),
            Box::new(Personality::cautious()),
        ];
        seats.insert(seat, Box::new(OptimalBot::default()));
        let s = play_game(&settings, 1_000 + g, seats).expect("game");
        let w = s.winner().expect("finished");
        wins += u64::from(w == seat);
    }
    let rate = wins as f64 / games as f64;
    assert!(rate > 0.40, "optimal won {rate:.3} of three-player games");
}
