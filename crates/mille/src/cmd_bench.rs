//! `mille bench`: the engine's headline figure, random-play throughput of
//! complete 2-player `bsd` hands on one core, as the median of timed batches.

use clap::Args;
use mille_engine::sim::play_random_hand;
use mille_engine::{Action, GameConfig, State};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use std::time::{Duration, Instant};

/// Options of `mille bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Seconds to measure for.
    #[arg(long, default_value_t = 3.0, value_parser = seconds)]
    seconds: f64,
    /// Play exactly this many hands and print only the count of actions (a
    /// fixed workload for instruction-counting profilers).
    #[arg(long)]
    hands: Option<u64>,
}

/// Longest measurement `--seconds` accepts: a day.
const MAX_SECONDS: f64 = 86_400.0;

/// A `--seconds` value: a finite number up to [`MAX_SECONDS`] (an infinite
/// or huge one has no duration to measure for).
fn seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if v.is_finite() && v <= MAX_SECONDS {
        Ok(v)
    } else {
        Err(format!("must be a number of seconds up to {MAX_SECONDS}"))
    }
}

/// Runs the benchmark and prints the figures.
pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut state = State::new(GameConfig::default(), 1)?;
    let next_hand = |state: &mut State, rng: &mut ChaCha8Rng| {
        if state.apply(Action::NextHand).is_err() {
            let _ = state.apply(Action::NextGame);
        }
        play_random_hand(state, rng)
    };
    if let Some(n) = args.hands {
        let actions: u64 = (0..n)
            .map(|_| u64::from(next_hand(&mut state, &mut rng)))
            .sum();
        println!("{n} hands, {actions} actions");
        return Ok(());
    }
    // Warm up caches and the branch predictor before measuring.
    for _ in 0..2_000 {
        next_hand(&mut state, &mut rng);
    }
    let batches = 15usize;
    let per_batch = Duration::from_secs_f64(args.seconds.max(0.15) / batches as f64);
    let mut rates = Vec::with_capacity(batches);
    let (mut hands, mut actions) = (0u64, 0u64);
    for _ in 0..batches {
        let start = Instant::now();
        let mut n = 0u64;
        while start.elapsed() < per_batch {
            for _ in 0..100 {
                actions += u64::from(next_hand(&mut state, &mut rng));
            }
            n += 100;
        }
        hands += n;
        rates.push(n as f64 / start.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    let median = rates[rates.len() / 2];
    let per_hand = actions as f64 / hands as f64;
    if args.json {
        let out = serde_json::json!({
            "random_hands_per_second": median.round() as u64,
            "actions_per_hand": (per_hand * 10.0).round() / 10.0,
            "hands": hands,
            "batches": batches,
            "rules": "bsd",
            "players": 2,
            "threads": 1,
        });
        println!("{out}");
    } else {
        println!(
            "random 2-player bsd hands, one core: {median:.0} hands/s (median of {batches} batches, {hands} hands, {per_hand:.1} actions per hand)"
        );
    }
    Ok(())
}
