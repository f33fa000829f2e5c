//! Calibrates the built-in computer levels: plays them against each other,
//! rates the games through `game_rating::rate`, and prints each level's
//! rating (with `--rust`, the source of `src/calibration.rs`, the tables
//! going to standard error).
//!
//! ```text
//! cargo run --release -p game-rating --example rate-levels
//! cargo run --release -p game-rating --example rate-levels -- --rust > crates/game-rating/src/calibration.rs
//! ```
//!
//! Mille: bsd rules, 2 players, every pair of levels on the same duplicate
//! deals (each deal twice, seats swapped; fewer deals for the pairs with
//! `normal`, the slow search). Cubes: the standard game, 2
//! players, every pair of levels on the same dice seeds (each seed twice,
//! seats swapped). Games run in parallel, but each is seeded on its own and
//! the search levels play without their time cap, so the results depend
//! on the seed alone; they are rated in a fixed order (round by round,
//! pair by pair), each level starting as a newcomer (1500 ± 350).

use cubes_engine::Settings;
use game_rating::{Participant, Rating, rate};
use game_table::{Player, SeatInfo, Step, Table};
use mille_ai::{Level, MilleBot, SearchBot, make_bot};
use mille_engine::{Action, GameConfig, Mille, RulesetId, State};
use rayon::prelude::*;
use std::time::Instant;

/// Deals each pair of mille levels plays (two games each), unless one of
/// them is `normal`, whose games take a hundred times longer.
const MILLE_DEALS: u64 = 60;
/// Deals a pair with `normal` plays.
const MILLE_NORMAL_DEALS: u64 = 6;
/// Dice seeds each pair of cubes levels plays (two games each).
const CUBES_SEEDS: u64 = 500;
/// The seed of every deal and every bot.
const SEED: u64 = 1;

const MILLE_LEVELS: [Level; 4] = [Level::Random, Level::Classic, Level::Easy, Level::Normal];
const CUBES_LEVELS: [&str; 5] = ["cautious", "steady", "bold", "reckless", "optimal"];

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One game to play: a deal (or dice seed) number, a pair of levels
/// (indices), who sits first.
#[derive(Clone, Copy)]
struct Game {
    round: u64,
    a: usize,
    b: usize,
    swapped: bool,
}

/// The schedule: each pair `(a, b)` plays `rounds(a, b)` deals, each twice
/// with seats swapped; a pair's deals are spread evenly over the whole
/// sequence, so that the pairs that play less are rated among the others
/// at every stage rather than all at the start.
fn schedule(levels: usize, rounds: impl Fn(usize, usize) -> u64) -> Vec<Game> {
    let mut games = Vec::new();
    for a in 0..levels {
        for b in a + 1..levels {
            let n = rounds(a, b);
            for round in 0..n {
                for swapped in [false, true] {
                    // When, as a fraction of the whole (exact: n ≥ 1).
                    let at = (2 * round + 1, 2 * n);
                    games.push((
                        at,
                        Game {
                            round,
                            a,
                            b,
                            swapped,
                        },
                    ));
                }
            }
        }
    }
    // By time (comparing fractions exactly), then pair, then seating.
    games.sort_by(|((x, xd), g), ((y, yd), h)| {
        (u128::from(*x) * u128::from(*yd))
            .cmp(&(u128::from(*y) * u128::from(*xd)))
            .then((g.a, g.b, g.swapped).cmp(&(h.a, h.b, h.swapped)))
    });
    games.into_iter().map(|(_, g)| g).collect()
}

/// The places of the two seats: 0 for a winner, 1 for a loser.
type Places = [usize; 2];

/// A search level without its time cap, so that its moves do not depend
/// on the machine's load.
fn mille_bot(level: Level, seed: u64) -> Box<MilleBot> {
    match level.uncapped_budget() {
        Some(budget) => Box::new(SearchBot::new(level.id(), budget, seed)),
        None => make_bot(level, seed),
    }
}

fn play_mille(levels: [Level; 2], deal: u64, bot_seed: u64) -> Result<Places, String> {
    let config = GameConfig {
        rules: RulesetId::Bsd,
        players: 2,
        stacking: false,
    };
    let state = State::new(config, deal).map_err(|e| e.to_string())?;
    let seats = levels
        .iter()
        .enumerate()
        .map(|(s, &l)| {
            let bot = mille_bot(l, splitmix(bot_seed ^ s as u64));
            (
                SeatInfo::computer(bot.name().to_string(), l.id()),
                Player::Bot(bot),
            )
        })
        .collect();
    let mut table = Table::<Mille>::new(state, seats);
    loop {
        match table.run_bots().map_err(|e| e.to_string())? {
            Step::Host => table
                .host_act(Action::NextHand)
                .map_err(|e| e.to_string())?,
            Step::Over => break,
            Step::Person(seat) | Step::Moved { seat, .. } => {
                return Err(format!("seat {seat} has no computer"));
            }
        }
    }
    // Seat s plays for team s at a 2-player table.
    let winners = table.state().winners();
    Ok([0u8, 1].map(|t| usize::from(!winners.contains(&t))))
}

fn play_cubes(levels: [&str; 2], seed: u64) -> Result<Places, String> {
    let bots = levels
        .iter()
        .map(|l| cubes_ai::by_name(l).ok_or_else(|| format!("no cubes player {l}")))
        .collect::<Result<Vec<_>, _>>()?;
    let state =
        cubes_ai::sim::play_game(&Settings::standard(), seed, bots).map_err(|e| e.to_string())?;
    let winner = state.winner();
    Ok([0, 1].map(|s| usize::from(winner != Some(s))))
}

/// A level's line of the table.
struct Line {
    level: String,
    /// Its rating as the games left it.
    rating: Rating,
    /// Its rating after each of its games.
    after: Vec<f64>,
    games: u32,
    wins: u32,
}

impl Line {
    /// The measured rating: the mean of the level's ratings after each
    /// game of the second half of its games. Glicko-2 follows the latest
    /// games (its deviation settles near 60, not near 0), so the last
    /// rating alone wanders by about that much from one game to the next;
    /// the mean over many games does not.
    fn measured(&self) -> f64 {
        let half = &self.after[self.after.len() / 2..];
        if half.is_empty() {
            self.rating.rating
        } else {
            half.iter().sum::<f64>() / half.len() as f64
        }
    }
}

/// What the games gave: each level's line (strongest first) and, for
/// every two levels (by their index in `names`), the wins of the first
/// against the second.
struct Rated {
    lines: Vec<Line>,
    wins: Vec<Vec<u32>>,
    names: Vec<String>,
}

/// Rates `results` (the games of `schedule`, in its order) among `names`.
fn rate_all(names: &[String], games: &[Game], results: &[Places]) -> Result<Rated, String> {
    let mut lines: Vec<Line> = names
        .iter()
        .map(|n| Line {
            level: n.clone(),
            rating: Rating::default(),
            after: Vec::new(),
            games: 0,
            wins: 0,
        })
        .collect();
    let mut wins = vec![vec![0; names.len()]; names.len()];
    for (g, places) in games.iter().zip(results) {
        let seats = if g.swapped { [g.b, g.a] } else { [g.a, g.b] };
        let players: Vec<Participant> = (0..2)
            .map(|s| Participant {
                rating: lines[seats[s]].rating,
                side: s,
                place: places[s],
                abandoned: false,
            })
            .collect();
        let new = rate(&players).map_err(|e| e.to_string())?;
        for s in 0..2 {
            let won = places[s] == 0 && places[1 - s] == 1;
            let line = &mut lines[seats[s]];
            line.rating = new[s];
            line.after.push(new[s].rating);
            line.games += 1;
            line.wins += u32::from(won);
            wins[seats[s]][seats[1 - s]] += u32::from(won);
        }
    }
    lines.sort_by(|x, y| y.measured().total_cmp(&x.measured()));
    Ok(Rated {
        lines,
        wins,
        names: names.to_vec(),
    })
}

fn table(title: &str, rated: &Rated) -> String {
    let mut out = format!(
        "{title}\n\n| level | rating | deviation | games | wins | last rating |\n\
         |---|---:|---:|---:|---:|---:|\n"
    );
    for l in &rated.lines {
        out += &format!(
            "| {} | {:.0} | {:.0} | {} | {} | {:.0} |\n",
            l.level,
            l.measured(),
            l.rating.deviation,
            l.games,
            l.wins,
            l.rating.rating
        );
    }
    // Head to head, in the order of the table.
    let order: Vec<usize> = rated
        .lines
        .iter()
        .filter_map(|l| rated.names.iter().position(|n| *n == l.level))
        .collect();
    out += "\nWins of the row's level against the column's:\n\n| |";
    for &j in &order {
        out += &format!(" {} |", rated.names[j]);
    }
    out += "\n|---|";
    out += &"---:|".repeat(order.len());
    out += "\n";
    for &i in &order {
        out += &format!("| {} |", rated.names[i]);
        for &j in &order {
            if i == j {
                out += " |";
            } else {
                out += &format!(" {} |", rated.wins[i][j]);
            }
        }
        out += "\n";
    }
    out
}

fn print_rust(tables: &[(&str, &Rated)], command: &str) {
    println!(
        "//! The built-in computer levels' calibrated ratings, which [`crate::starting`]\n\
         //! gives them. The table below is written by\n\
         //! `{command}`\n\
         //! (docs/ratings.md: how, when and with what result); replace it whole\n\
         //! with that command's output rather than editing it.\n\
         \n\
         /// One computer level's measured rating.\n\
         #[derive(Clone, Copy, Debug, PartialEq)]\n\
         pub struct Calibrated {{\n    \
             /// The game: `mille` or `cubes`.\n    \
             pub game: &'static str,\n    \
             /// The level (`classic`, `steady`...).\n    \
             pub level: &'static str,\n    \
             /// The measured rating (the mean over the second half of its games).\n    \
             pub rating: f64,\n    \
             /// Its deviation at the end of the calibration.\n    \
             pub deviation: f64,\n    \
             /// Its volatility at the end of the calibration.\n    \
             pub volatility: f64,\n\
         }}\n\
         \n\
         /// Every calibrated level, strongest first in each game.\n\
         pub const CALIBRATED: &[Calibrated] = &["
    );
    for (game, rated) in tables {
        for l in &rated.lines {
            println!(
                "    Calibrated {{\n        game: \"{game}\",\n        level: \"{}\",\n        \
                 rating: {:.1},\n        deviation: {:.1},\n        volatility: {:.6},\n    }},",
                l.level,
                l.measured(),
                l.rating.deviation,
                l.rating.volatility
            );
        }
    }
    println!("];");
}

/// The value after `flag` on the command line, or `default`.
fn number(flag: &str, default: u64) -> Result<u64, String> {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == flag) {
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{flag} wants a number")),
        None => Ok(default),
    }
}

fn main() -> Result<(), String> {
    let rust = std::env::args().skip(1).any(|a| a == "--rust");
    // Smaller runs, to try the command; the published table uses the defaults.
    let mille_deals = number("--mille-deals", MILLE_DEALS)?;
    let normal_deals = number("--mille-normal-deals", MILLE_NORMAL_DEALS)?;
    let cubes_seeds = number("--cubes-seeds", CUBES_SEEDS)?;
    let start = Instant::now();

    let normal = |i: usize| MILLE_LEVELS[i] == Level::Normal;
    let mille_games = schedule(MILLE_LEVELS.len(), |a, b| {
        if normal(a) || normal(b) {
            normal_deals
        } else {
            mille_deals
        }
    });
    let mille_results = mille_games
        .par_iter()
        .enumerate()
        .map(|(i, g)| {
            let levels = [MILLE_LEVELS[g.a], MILLE_LEVELS[g.b]];
            let seats = if g.swapped {
                [levels[1], levels[0]]
            } else {
                levels
            };
            // Both games of a deal get its cards; every game its own bots.
            let deal = splitmix(SEED ^ splitmix(g.round));
            play_mille(seats, deal, splitmix(SEED.wrapping_add(i as u64)))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mille_time = start.elapsed();

    let cubes_games = schedule(CUBES_LEVELS.len(), |_, _| cubes_seeds);
    let cubes_results = cubes_games
        .par_iter()
        .map(|g| {
            let seats = if g.swapped {
                [CUBES_LEVELS[g.b], CUBES_LEVELS[g.a]]
            } else {
                [CUBES_LEVELS[g.a], CUBES_LEVELS[g.b]]
            };
            play_cubes(seats, splitmix(SEED ^ splitmix(g.round)))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let total = start.elapsed();

    let mille_names: Vec<String> = MILLE_LEVELS.iter().map(|l| l.id().to_string()).collect();
    let cubes_names: Vec<String> = CUBES_LEVELS.iter().map(|l| l.to_string()).collect();
    let mille = rate_all(&mille_names, &mille_games, &mille_results)?;
    let cubes = rate_all(&cubes_names, &cubes_games, &cubes_results)?;

    let tables = format!(
        "{}\n{}",
        table(
            &format!(
                "Mille Bornes, bsd: {} games ({mille_deals} deals per pair, {normal_deals} \
                 with normal, each twice)",
                mille_games.len()
            ),
            &mille,
        ),
        table(
            &format!(
                "Cubes, standard: {} games ({cubes_seeds} seeds per pair, each twice)",
                cubes_games.len()
            ),
            &cubes,
        )
    );
    // With --rust the tables go to standard error, so that one run gives
    // both the source file and what to publish.
    if rust {
        print_rust(
            &[("mille", &mille), ("cubes", &cubes)],
            "cargo run --release -p game-rating --example rate-levels -- --rust",
        );
        eprintln!("{tables}");
    } else {
        println!("{tables}");
    }
    eprintln!(
        "{} games in {:.0} s (mille {:.0} s, cubes {:.0} s) on {} threads, seed {SEED}",
        mille_games.len() + cubes_games.len(),
        total.as_secs_f64(),
        mille_time.as_secs_f64(),
        (total - mille_time).as_secs_f64(),
        rayon::current_num_threads()
    );
    Ok(())
}
