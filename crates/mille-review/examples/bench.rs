//! Speed of the review: a whole 2-player hand and a whole game, seat 0,
//! default budget, on games the classic bot played.
//!
//! `cargo run --release -p mille-review --example bench [GAMES]`
//! (default 5 games; prints each time and the medians).

use mille_engine::GameConfig;
use mille_review::{ReviewConfig, classic_game, review_game};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return 0.0;
    }
    v[v.len() / 2]
}

fn main() {
    let games: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let config = ReviewConfig::default();
    println!(
        "review budget: {} iterations, {} trees a decision; {} threads",
        config.iterations,
        config.trees,
        rayon::current_num_threads()
    );
    let (mut hand_times, mut game_times) = (Vec::new(), Vec::new());
    for seed in 1..=games {
        let hand = classic_game(GameConfig::default(), seed, Some(1));
        let start = Instant::now();
        let Ok(review) = review_game(&hand, 0, &config) else {
            eprintln!("game {seed}: does not replay");
            continue;
        };
        let t = start.elapsed().as_secs_f64();
        println!(
            "game {seed}: hand 1, {} decisions ({} with a choice) in {t:.2} s",
            review.decisions.len(),
            review.decisions.iter().filter(|d| d.had_choice()).count()
        );
        hand_times.push(t);
        let game = classic_game(GameConfig::default(), seed, None);
        let start = Instant::now();
        let Ok(review) = review_game(&game, 0, &config) else {
            eprintln!("game {seed}: does not replay");
            continue;
        };
        let t = start.elapsed().as_secs_f64();
        println!(
            "game {seed}: whole game, {} hands, {} decisions in {t:.2} s",
            review.hands.len(),
            review.decisions.len()
        );
        game_times.push(t);
    }
    println!(
        "median: a hand {:.2} s, a game {:.2} s",
        median(hand_times),
        median(game_times)
    );
}
