//! Simulated matches between computer players, each game at a
//! [`game_table::Table`] (the one game loop of the suite).
//!
//! Games come in pairs on the same dice seed with the seats swapped (games
//! `2k` and `2k + 1` use seed `seed + k`). The seed draws the seat that
//! starts, the same seat in both games of a pair, so each player starts one
//! game of every pair, and luck of the first rolls is shared. Games run in parallel
//! (rayon); the result does not depend on the number of threads.
//!
//! A computer player that chooses an illegal move, or fails to answer, is a
//! bug in that player: the game stops there and the match reports it
//! ([`SimError`]); no other move is ever played in its place.

use cubes_engine::{Cubes, Settings, SetupError, State};
use game_table::{Bot, Player, SeatInfo, Step, Table, TableError};
use rayon::prelude::*;

/// A computer player, as the match runner makes them.
pub type BoxedBot = Box<dyn Bot<Cubes>>;

/// Why a simulated game did not finish.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The game could not be set up.
    #[error("cannot set up the game: {0}")]
    Setup(#[from] SetupError),
    /// A computer player chose an illegal move or failed to answer.
    #[error("game on seed {seed}: {error}")]
    Table {
        /// The game's seed.
        seed: u64,
        /// What the table reported.
        error: Box<TableError<Cubes>>,
    },
    /// The table waited for a person, although only computers play.
    #[error("game on seed {seed}: seat {seat} has no computer player")]
    NoBot {
        /// The game's seed.
        seed: u64,
        /// The seat.
        seat: usize,
    },
}

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

/// Plays one game between `bots` (seat order) at a table, returns the
/// final state; a bot's illegal move or failure ends it with an error.
pub fn play_game(settings: &Settings, seed: u64, bots: Vec<BoxedBot>) -> Result<State, SimError> {
    let state = State::new(settings.clone(), bots.len(), seed)?;
    let seats = bots
        .into_iter()
        .map(|b| {
            let name = b.name().to_string();
            (SeatInfo::computer(name.clone(), name), Player::Bot(b))
        })
        .collect();
    let mut table = Table::<Cubes>::new(state, seats);
    match table.run_bots() {
        Ok(Step::Over) => Ok(table.state().clone()),
        // Cubes never waits for the host; only computers sit here.
        Ok(Step::Person(seat) | Step::Moved { seat, .. }) => Err(SimError::NoBot { seed, seat }),
        Ok(Step::Host) => Err(SimError::NoBot { seed, seat: 0 }),
        Err(error) => Err(SimError::Table {
            seed,
            error: Box::new(error),
        }),
    }
}

/// Plays `games` two-player games between fresh bots from `make_a` and
/// `make_b`, alternating seats; the first game a bot spoils (an illegal
/// move, a failure) is the error.
pub fn run_match<A, B>(
    settings: &Settings,
    games: u64,
    seed: u64,
    make_a: A,
    make_b: B,
) -> Result<MatchResult, SimError>
where
    A: Fn() -> BoxedBot + Sync,
    B: Fn() -> BoxedBot + Sync,
{
    (0..games)
        .into_par_iter()
        .map(|g| {
            let a_first = g % 2 == 0;
            let game_seed = seed.wrapping_add(g / 2);
            let bots = if a_first {
                vec![make_a(), make_b()]
            } else {
                vec![make_b(), make_a()]
            };
            let s = play_game(settings, game_seed, bots)?;
            let (sa, sb) = if a_first { (0, 1) } else { (1, 0) };
            let winner = s.winner();
            Ok(MatchResult {
                games: 1,
                a_wins: u64::from(winner == Some(sa)),
                first_wins: u64::from(winner == Some(s.first())),
                a_points: u64::from(s.players()[sa].score),
                b_points: u64::from(s.players()[sb].score),
                turns: s.players().iter().map(|p| u64::from(p.turns)).sum(),
            })
        })
        .try_reduce(MatchResult::default, |a, b| Ok(a.add(b)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Personality;
    use cubes_engine::{Action, DiceMask, Observation, Phase};
    use game_table::BotError;

    /// Rolls, then keeps die 1 whatever it shows: illegal as soon as die 1
    /// does not score.
    struct KeepsDieOne;

    impl Bot<Cubes> for KeepsDieOne {
        fn name(&self) -> &str {
            "Keeps One"
        }
        fn decide(&mut self, o: &Observation) -> Result<Action, BotError> {
            Ok(match o.view.phase {
                Phase::Rolled => Action::Keep(DiceMask::of(&[0])),
                _ => Action::Roll,
            })
        }
    }

    #[test]
    fn an_illegal_bot_move_is_reported_not_replaced() {
        let settings = Settings::standard();
        let err = play_game(
            &settings,
            3,
            vec![Box::new(KeepsDieOne), Box::new(Personality::steady())],
        )
        .expect_err("die 1 does not always score");
        let text = err.to_string();
        assert!(
            matches!(&err, SimError::Table { error, .. }
                if matches!(**error, TableError::BotIllegal { ref bot, .. } if bot == "Keeps One")),
            "{err:?}"
        );
        assert!(text.contains("chose the illegal move keep"), "{text}");
        assert!(text.contains("is not a scoring keep"), "{text}");
        let r = run_match(
            &settings,
            4,
            1,
            || Box::new(Personality::steady()),
            || Box::new(KeepsDieOne),
        );
        assert!(r.is_err(), "a match with a broken bot fails: {r:?}");
    }

    /// Counts the games it starts (its first decision of a game is the
    /// game's first move when nobody has rolled yet).
    struct Starts {
        bot: Personality,
        starts: std::sync::Arc<std::sync::atomic::AtomicU64>,
    }

    impl Bot<Cubes> for Starts {
        fn name(&self) -> &str {
            self.bot.name
        }
        fn decide(&mut self, o: &Observation) -> Result<Action, BotError> {
            if o.view.players.iter().all(|p| p.turns == 0) && o.view.turn.rolls == 0 {
                self.starts
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            Ok(self.bot.act(&o.view))
        }
    }

    #[test]
    fn each_player_starts_one_game_of_every_pair() {
        let starts = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counted = starts.clone();
        let r = run_match(
            &Settings::blitz(),
            40,
            3,
            move || {
                Box::new(Starts {
                    bot: Personality::steady(),
                    starts: counted.clone(),
                })
            },
            || Box::new(Personality::steady()),
        )
        .expect("legal bots");
        assert_eq!(r.games, 40);
        assert_eq!(starts.load(std::sync::atomic::Ordering::Relaxed), 20);
    }

    #[test]
    fn a_match_of_legal_bots_counts_every_game() {
        let r = run_match(
            &Settings::blitz(),
            10,
            1,
            || Box::new(Personality::bold()),
            || Box::new(Personality::cautious()),
        )
        .expect("legal bots");
        assert_eq!(r.games, 10);
        assert!(r.turns > 0 && r.a_points + r.b_points > 0);
    }
}
