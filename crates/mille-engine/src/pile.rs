//! Fixed-capacity card stacks: piles, hands, the draw pile and the discards
//! live inline in the state so that cloning a state and playing a hand never
//! touch the heap.

use crate::card::Card;
use std::fmt;

/// A stack of at most `N` cards, bottom first.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pile<const N: usize> {
    len: u8,
    cards: [Card; N],
}

impl<const N: usize> Default for Pile<N> {
    fn default() -> Self {
        Pile {
            len: 0,
            cards: [Card::D25; N],
        }
    }
}

impl<const N: usize> Pile<N> {
    /// Capacity.
    pub const CAPACITY: usize = N;

    /// The cards, bottom first.
    #[inline]
    pub fn as_slice(&self) -> &[Card] {
        &self.cards[..self.len as usize]
    }
    /// Number of cards.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// True when empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The top card.
    #[inline]
    pub fn top(&self) -> Option<Card> {
        self.as_slice().last().copied()
    }
    /// Puts a card on top. Returns false (and drops nothing) when full; the
    /// capacities are chosen so that a legal game never fills a pile.
    #[inline]
    pub fn push(&mut self, c: Card) -> bool {
        if (self.len as usize) < N {
            self.cards[self.len as usize] = c;
            self.len += 1;
            true
        } else {
            false
        }
    }
    /// Puts `n` copies of a card on top (as many as fit).
    #[inline]
    pub fn push_copies(&mut self, c: Card, n: u8) {
        let start = self.len as usize;
        let end = (start + n as usize).min(N);
        self.cards[start..end].fill(c);
        self.len = end as u8;
    }
    /// Takes the top card.
    #[inline]
    pub fn pop(&mut self) -> Option<Card> {
        if self.len == 0 {
            None
        } else {
            self.len -= 1;
            Some(self.cards[self.len as usize])
        }
    }
    /// Position of the first copy of a card.
    #[inline]
    pub fn position(&self, c: Card) -> Option<usize> {
        if N == 8 {
            // A hand: compare all eight slots at once as the bytes of one
            // word (where the card sits is random in play, so a scan that
            // stops early mispredicts its exit).
            let mut bytes = [0u8; 8];
            for (b, &x) in bytes.iter_mut().zip(&self.cards) {
                *b = x as u8;
            }
            let x = u64::from_le_bytes(bytes) ^ (0x0101_0101_0101_0101 * u64::from(c as u8));
            let zero = x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080;
            let live = if self.len >= 8 {
                u64::MAX
            } else {
                (1u64 << (8 * u32::from(self.len))) - 1
            };
            let zero = zero & live;
            (zero != 0).then(|| zero.trailing_zeros() as usize / 8)
        } else {
            self.as_slice().iter().position(|&x| x == c)
        }
    }
    /// Whether the pile holds a card.
    #[inline]
    pub fn contains(&self, c: Card) -> bool {
        self.position(c).is_some()
    }
    /// Removes the card at `i`, moving the top card into its place (the way
    /// BSD mille fills the played slot with the picked card).
    #[inline]
    pub fn swap_remove(&mut self, i: usize) -> Card {
        let c = self.cards[i];
        self.len -= 1;
        self.cards[i] = self.cards[self.len as usize];
        c
    }
    /// Removes the first copy of a card; false if absent.
    #[inline]
    pub fn remove(&mut self, c: Card) -> bool {
        match self.position(c) {
            Some(i) => {
                self.swap_remove(i);
                true
            }
            None => false,
        }
    }
    /// Empties the pile.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }
    /// Mutable access for shuffling.
    #[inline]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [Card] {
        &mut self.cards[..self.len as usize]
    }
}

impl<const N: usize> fmt::Debug for Pile<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.as_slice().iter().map(|c| c.id()))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_pop_and_swap_remove() {
        let mut p: Pile<3> = Pile::default();
        assert!(p.push(Card::Go));
        assert!(p.push(Card::Stop));
        assert!(p.push(Card::D25));
        assert!(!p.push(Card::D50), "full pile refuses");
        assert_eq!(p.top(), Some(Card::D25));
        assert_eq!(p.swap_remove(0), Card::Go);
        assert_eq!(p.as_slice(), &[Card::D25, Card::Stop]);
        assert!(p.remove(Card::Stop));
        assert!(!p.remove(Card::Stop));
        assert_eq!(p.pop(), Some(Card::D25));
        assert_eq!(p.pop(), None);
    }

    #[test]
    fn hand_sized_position_matches_a_plain_scan() {
        // Every length 0..=8 and every card, including cards left behind
        // past the end by earlier removals.
        let mut h: Pile<8> = Pile::default();
        for c in [
            Card::Go,
            Card::Stop,
            Card::Go,
            Card::D200,
            Card::ExtraTank,
            Card::D25,
        ] {
            h.push(c);
        }
        h.push(Card::RightOfWay);
        h.push(Card::Stop);
        for len in (0..=8).rev() {
            for c in Card::ALL {
                let expect = h.as_slice().iter().position(|&x| x == c);
                assert_eq!(h.position(c), expect, "{c:?} in {h:?}");
            }
            if len > 0 {
                h.pop();
            }
        }
    }
}
