//! Shuffling: the deck's Fisher-Yates and the uniform draw in a range that
//! it and the random play-outs use.

use crate::card::Card;
use rand_core::Rng;

/// Fisher-Yates with our own bounded draw, so a seed deals the same cards
/// whatever version of `rand` is around.
pub(crate) fn shuffle<R: Rng + ?Sized>(cards: &mut [Card], rng: &mut R) {
    for i in (1..cards.len()).rev() {
        let j = bounded(rng, i as u32 + 1) as usize;
        cards.swap(i, j);
    }
}

/// A uniform number in `0..n` (Lemire's multiply-and-reject).
#[inline]
pub fn bounded<R: Rng + ?Sized>(rng: &mut R, n: u32) -> u32 {
    let mut m = u64::from(rng.next_u32()) * u64::from(n);
    if (m as u32) < n {
        let threshold = n.wrapping_neg() % n;
        while (m as u32) < threshold {
            m = u64::from(rng.next_u32()) * u64::from(n);
        }
    }
    (m >> 32) as u32
}
