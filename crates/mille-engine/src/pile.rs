//! Fixed-capacity card stacks: piles, hands, the draw pile and the discards
//! live inline in the state so that cloning a state and playing a hand never
//! touch the heap.

use crate::card::{Card, CardCounts};
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

    /// `counts[c]` copies of each card `c`, in card order (as many as fit).
    pub const fn sorted(counts: [u8; Card::ALL.len()]) -> Pile<N> {
        let mut p = Pile {
            len: 0,
            cards: [Card::D25; N],
        };
        let mut c = 0;
        while c < counts.len() {
            let mut k = 0;
            while k < counts[c] && (p.len as usize) < N {
                p.cards[p.len as usize] = Card::ALL[c];
                p.len += 1;
                k += 1;
            }
            c += 1;
        }
        p
    }

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
        self.as_slice().iter().position(|&x| x == c)
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

/// The discard pile: a [`Pile`] that also counts its cards per kind as
/// they land, because the computer players count the discards at every
/// decision of their play-outs.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Discards<const N: usize> {
    pile: Pile<N>,
    counts: CardCounts,
}

impl<const N: usize> Discards<N> {
    /// The cards, oldest first.
    #[inline]
    pub fn as_slice(&self) -> &[Card] {
        self.pile.as_slice()
    }
    /// The cards counted per kind.
    #[inline]
    pub fn counts(&self) -> &CardCounts {
        &self.counts
    }
    /// Puts a card on top; false (and nothing counted) when full.
    #[inline]
    pub fn push(&mut self, c: Card) -> bool {
        let pushed = self.pile.push(c);
        if pushed {
            self.counts.add(c);
        }
        pushed
    }
    /// Empties the pile.
    #[inline]
    pub fn clear(&mut self) {
        self.pile.clear();
        self.counts = CardCounts::default();
    }
}

impl<const N: usize> fmt::Debug for Discards<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.pile.fmt(f)
    }
}

/// A player's hand: at most eight cards, in the order the player sees
/// them, plus the set of card kinds held and their counts, which every
/// turn of every play-out asks for (so they are kept up to date rather
/// than recomputed).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Hand {
    cards: Pile<8>,
    /// Bit `c` is set while the hand holds at least one card `c`.
    kinds: u32,
    /// The cards counted per kind.
    counts: CardCounts,
}

impl Hand {
    /// Capacity (six dealt, one drawn, one spare).
    pub const CAPACITY: usize = 8;

    /// The cards, in slot order.
    #[inline]
    pub fn as_slice(&self) -> &[Card] {
        self.cards.as_slice()
    }
    /// Number of cards.
    #[inline]
    pub fn len(&self) -> usize {
        self.cards.len()
    }
    /// True when empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.cards.is_empty()
    }
    /// The card kinds held, one bit per [`Card`] (`1 << card as u32`).
    #[inline]
    pub fn kinds(&self) -> u32 {
        self.kinds
    }
    /// The cards counted per kind.
    #[inline]
    pub fn counts(&self) -> &CardCounts {
        &self.counts
    }
    /// Whether the hand holds a card.
    #[inline]
    pub fn contains(&self, c: Card) -> bool {
        self.kinds & 1 << c as u32 != 0
    }
    /// Adds a card in the last slot; false (and nothing changes) when full.
    #[inline]
    pub fn push(&mut self, c: Card) -> bool {
        let pushed = self.cards.push(c);
        self.kinds |= u32::from(pushed) << c as u32;
        let n = &mut self.counts.0[c as usize];
        *n = n.saturating_add(u8::from(pushed));
        pushed
    }
    /// Empties the hand.
    #[inline]
    pub fn clear(&mut self) {
        self.cards.clear();
        self.kinds = 0;
        self.counts = CardCounts::default();
    }
    /// Slots holding `c`, as a byte mask (0x80 in byte `i` when slot `i`
    /// holds it). All eight slots are compared at once as the bytes of one
    /// word: where a card sits is random in play, so a scan that stops
    /// early mispredicts its exit.
    #[inline]
    fn slots_of(&self, c: Card) -> u64 {
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        let mut bytes = [0u8; 8];
        for (b, &x) in bytes.iter_mut().zip(&self.cards.cards) {
            *b = x as u8;
        }
        let x = u64::from_le_bytes(bytes) ^ (0x0101_0101_0101_0101 * u64::from(c as u8));
        // Exact per byte (no borrow between bytes): 0x80 where x's byte is 0.
        let zero = !(((x & LOW7) + LOW7) | x | LOW7);
        // The bytes of the slots in use (a table: no branch, no shift past
        // the word).
        const LIVE: [u64; 9] = {
            let mut t = [u64::MAX; 9];
            let mut len = 0;
            while len < 8 {
                t[len] = (1u64 << (8 * len)) - 1;
                len += 1;
            }
            t
        };
        zero & LIVE[usize::from(self.cards.len).min(8)]
    }
    /// Slot of the first copy of a card.
    #[inline]
    pub fn position(&self, c: Card) -> Option<usize> {
        let slots = self.slots_of(c);
        (slots != 0).then(|| slots.trailing_zeros() as usize / 8)
    }
    /// Removes the card in slot `i`, moving the last card into its place
    /// (the way BSD mille fills the played slot with the picked card).
    #[inline]
    pub fn swap_remove(&mut self, i: usize) -> Card {
        let c = self.cards.swap_remove(i);
        self.kinds &= !(u32::from(self.slots_of(c) == 0) << c as u32);
        let n = &mut self.counts.0[c as usize];
        *n = n.saturating_sub(1);
        c
    }
    /// Removes the first copy of a card; false if absent.
    #[inline]
    pub fn remove(&mut self, c: Card) -> bool {
        let slots = self.slots_of(c);
        if slots == 0 {
            return false;
        }
        self.cards.swap_remove(slots.trailing_zeros() as usize / 8);
        // Another copy left in the hand keeps the kind.
        let others = slots & (slots - 1);
        self.kinds &= !(u32::from(others == 0) << c as u32);
        let n = &mut self.counts.0[c as usize];
        *n = n.saturating_sub(1);
        true
    }
}

impl fmt::Debug for Hand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.cards.fmt(f)
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
    fn a_hand_tracks_its_kinds_and_positions_through_any_moves() {
        // A long pseudo-random walk of pushes and removals over a few kinds
        // (so duplicates are common), checking after every step against a
        // plain scan, stale slots past the end included.
        let kinds = [Card::Go, Card::Stop, Card::D200, Card::ExtraTank, Card::D25];
        let mut h = Hand::default();
        let mut x = 12345u32;
        for _ in 0..5000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let c = kinds[(x >> 16) as usize % kinds.len()];
            match (x >> 8) % 3 {
                0 => {
                    let had = h.contains(c);
                    assert_eq!(h.remove(c), had);
                }
                1 if !h.is_empty() => {
                    h.swap_remove((x >> 4) as usize % h.len());
                }
                _ => {
                    let room = h.len() < Hand::CAPACITY;
                    assert_eq!(h.push(c), room);
                }
            }
            let scan = h.as_slice().iter().fold(0, |m, &c| m | 1 << c as u32);
            assert_eq!(h.kinds(), scan, "{h:?}");
            let mut counted = CardCounts::default();
            counted.add_all(h.as_slice().iter().copied());
            assert_eq!(h.counts(), &counted, "{h:?}");
            for c in Card::ALL {
                let expect = h.as_slice().iter().position(|&y| y == c);
                assert_eq!(h.position(c), expect, "{c:?} in {h:?}");
            }
        }
    }
}
