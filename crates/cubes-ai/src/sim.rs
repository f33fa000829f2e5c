//! Simulated matches between computer players.
//!
//! Games come in pairs on the same dice seed with the seats swapped (games
//! `2k` and `2k + 1` use seed `seed + k`), so each player starts half of the
//! games and luck of the first rolls is shared. Games run in parallel
//! (rayon); the result does not depend on the number of threads.

use crate::Bot;
use cubes_engine::{Settings, SetupError, State, ToAct};
use rayon::prelude::*;

/// Result of a two-player match.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MatchResult {
    /// Games played.
    pub games: u64,
    /// Games won by player A.
    pub a_wins: u64,
    /// Games won by whoever moved first.
    pub first_wins: u64,
    /// Total points of A and B (for averages).
    pub a_points: u64,
    /// Total points of B.
    pub b_points: u64,
    /// Total turns.
    pub turns: u64,
}

impl MatchResult {
    /// A's win rate.
    pub fn a_rate(&self) -> f64 {
        self.a_wins as f64 / self.games.max(1) as f64
    }

    /// Half-width of the 95% confidence interval of a rate over the games.
    pub fn ci95(&self, rate: f64) -> f64 {
        1.96 * (rate * (1.0 - rate) / self.games.max(1) as f64).sqrt()
    }

    /// The first mover's win rate.
    pub fn first_rate(&self) -> f64 {
        self.first_wins as f64 / self.games.max(1) as f64
    }

    fn add(mut self, o: MatchResult) -> MatchResult {
        self.games += o.games;
        self.a_wins += o.a_wins;
        self.first_wins += o.first_wins;
        self.a_points += o.a_points;
        self.b_points += o.b_points;
        self.turns += o.turns;
        self
    }
}

/// Plays one game between `bots` (seat order), returns the final state.
pub fn play_game(
    settings: &Settings,
    seed: u64,
    bots: &mut [&mut dyn Bot],
) -> Result<State, SetupError> {
    let mut s = State::new(settings.clone(), bots.len(), seed)?;
    for _ in 0..1_000_000 {
        let ToAct::Seat(seat) = s.to_act() else { break };
        let a = bots[seat].act(&s.view(seat));
        if s.apply(a).is_err() {
            // A bot proposing an illegal action forfeits to the first legal one.
            let fallback = s.legal_actions().as_slice()[0];
            let _ = s.apply(fallback);
        }
    }
    Ok(s)
}

/// Plays `games` two-player games between fresh bots from `make_a` and
/// `make_b`, alternating who starts.
pub fn run_match<A, B>(
    settings: &Settings,
    games: u64,
    seed: u64,
    make_a: A,
    make_b: B,
) -> MatchResult
where
    A: Fn() -> Box<dyn Bot> + Sync,
    B: Fn() -> Box<dyn Bot> + Sync,
{
    (0..games)
        .into_par_iter()
        .map_init(
            || (make_a(), make_b()),
            |(a, b), g| {
                let a_first = g % 2 == 0;
                let played = if a_first {
                    play_game(
                        settings,
                        seed.wrapping_add(g / 2),
                        &mut [a.as_mut(), b.as_mut()],
                    )
                } else {
                    play_game(
                        settings,
                        seed.wrapping_add(g / 2),
                        &mut [b.as_mut(), a.as_mut()],
                    )
                };
                // Two seats always set up; count a failure as no game.
                let Ok(s) = played else {
                    return MatchResult::default();
                };
                let (sa, sb) = if a_first { (0, 1) } else { (1, 0) };
                let winner = s.winner();
                MatchResult {
                    games: 1,
                    a_wins: u64::from(winner == Some(sa)),
                    first_wins: u64::from(winner == Some(0)),
                    a_points: u64::from(s.players()[sa].score),
                    b_points: u64::from(s.players()[sb].score),
                    turns: s.players().iter().map(|p| u64::from(p.turns)).sum(),
                }
            },
        )
        .reduce(MatchResult::default, MatchResult::add)
}
