//! How fast a whole game is reviewed, and how large the losses of the
//! computer personalities are (what the review's thresholds are set
//! against): a developer's benchmark, not a part of the game.
//!
//! ```sh
//! cargo run --release -p cubes-ai --example review_bench -- --games 40
//! ```
//!
//! Each game is a personality (seat 1) against the optimal player; the
//! review of seat 1 is timed. The first review also loads the win tables
//! and solves its turns from nothing; it is reported apart.

use clap::Parser;
use cubes_ai::Personality;
use cubes_ai::optimal::decide;
use cubes_ai::review::{Unit, review_game};
use cubes_engine::{GameRecord, Settings, State, ToAct};
use std::time::Instant;

/// Time the review of whole games and summarise their losses.
#[derive(Parser, Debug)]
struct Args {
    /// Games to review.
    #[arg(long, default_value_t = 40)]
    games: u64,
    /// Blitz games instead of Standard ones.
    #[arg(long)]
    blitz: bool,
    /// Players at each game (the others play optimally).
    #[arg(long, default_value_t = 2)]
    players: usize,
    /// Also write the first game's record (JSON) to this file, for timing
    /// `cubes review FILE`.
    #[arg(long, value_name = "FILE")]
    dump: Option<std::path::PathBuf>,
}

fn game(settings: &Settings, players: usize, seed: u64, p: &Personality) -> GameRecord {
    let mut record = GameRecord::new(settings.clone(), players, seed);
    let Ok(mut state) = State::new(settings.clone(), players, seed) else {
        return record;
    };
    while let ToAct::Seat(s) = state.to_act() {
        let view = state.view(s);
        let a = if s == 0 { p.act(&view) } else { decide(&view) };
        if state.apply(a).is_err() {
            break;
        }
        record.actions.push(a);
    }
    record
}

fn main() {
    let args = Args::parse();
    let settings = if args.blitz {
        Settings::blitz()
    } else {
        Settings::standard()
    };
    let people = Personality::all();
    let mut times = Vec::new();
    let mut decisions = Vec::new();
    let mut losses: Vec<(String, Unit, f64)> = Vec::new();
    for seed in 0..args.games {
        let p = &people[seed as usize % people.len()];
        let record = game(&settings, args.players, seed + 1, p);
        if seed == 0
            && let Some(path) = &args.dump
        {
            let json = serde_json::to_string(&record).unwrap_or_default();
            if let Err(e) = std::fs::write(path, json) {
                eprintln!("{}: {e}", path.display());
            }
        }
        let start = Instant::now();
        let review = match review_game(&record, 0) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("game {seed}: {e}");
                continue;
            }
        };
        let took = start.elapsed().as_secs_f64();
        if seed == 0 {
            println!(
                "first review (tables loaded): {:.3} s, {} decisions",
                took,
                review.decisions.len()
            );
        } else {
            times.push(took);
        }
        decisions.push(review.decisions.len());
        for d in &review.decisions {
            losses.push((p.name.to_string(), d.unit, d.loss));
        }
    }
    times.sort_by(f64::total_cmp);
    if let (Some(first), Some(last)) = (times.first(), times.last()) {
        println!(
            "{} games: median {:.3} s, fastest {:.3} s, slowest {:.3} s per game; {:.0} decisions a game",
            times.len(),
            times[times.len() / 2],
            first,
            last,
            decisions.iter().sum::<usize>() as f64 / decisions.len().max(1) as f64
        );
    }
    for unit in [Unit::WinProbability, Unit::ExpectedPoints] {
        let mut l: Vec<f64> = losses
            .iter()
            .filter(|x| x.1 == unit && x.2 > 1e-7)
            .map(|x| x.2)
            .collect();
        if l.is_empty() {
            continue;
        }
        l.sort_by(f64::total_cmp);
        let q = |f: f64| l[((l.len() - 1) as f64 * f) as usize];
        println!(
            "{unit:?}: {} non-zero losses of {}; quantiles 50% {:.4} 75% {:.4} 90% {:.4} 95% {:.4} 99% {:.4} max {:.4}",
            l.len(),
            losses.iter().filter(|x| x.1 == unit).count(),
            q(0.5),
            q(0.75),
            q(0.9),
            q(0.95),
            q(0.99),
            q(1.0)
        );
    }
}
