//! Random play-outs: the throughput benchmark, property tests and simple
//! bots all play random legal moves the same way.

use crate::state::{Phase, State};
use rand_core::Rng;

/// Plays uniformly random legal actions until the current hand is over.
/// Returns the number of actions applied. Never allocates.
pub fn play_random_hand<R: Rng + ?Sized>(state: &mut State, rng: &mut R) -> u32 {
    let mut n = 0;
    while !matches!(state.phase(), Phase::HandOver | Phase::GameOver) {
        state.step_random(rng);
        n += 1;
    }
    n
}
