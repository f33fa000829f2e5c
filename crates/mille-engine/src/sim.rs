//! Random play-outs: the throughput benchmark, property tests and simple
//! bots all play random legal moves the same way.

use crate::state::State;
use rand_core::Rng;

/// Plays uniformly random legal actions until the current hand is over.
/// Returns the number of actions applied. Never allocates.
pub fn play_random_hand<R: Rng + ?Sized>(state: &mut State, rng: &mut R) -> u32 {
    state.play_random_hand(rng)
}
