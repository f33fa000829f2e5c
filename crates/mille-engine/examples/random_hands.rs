//! A fixed random-play workload for instruction-counting profilers:
//! `cargo run --release -p mille-engine --example random_hands -- 20000`.

use mille_engine::sim::play_random_hand;
use mille_engine::{Action, GameConfig, State};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut state = State::new(GameConfig::default(), 1).expect("default config is valid");
    let start = std::time::Instant::now();
    let mut actions = 0u64;
    for _ in 0..n {
        if state.apply(Action::NextHand).is_err() {
            let _ = state.apply(Action::NextGame);
        }
        actions += u64::from(play_random_hand(&mut state, &mut rng));
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{n} hands, {actions} actions, {:.0} hands/s",
        n as f64 / secs
    );
}
