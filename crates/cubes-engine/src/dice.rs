//! Dice faces, masks over the five dice, and how a die is rolled.
//!
//! Rolling is done here with an explicit rejection sampler over the raw
//! generator output (not `rand`'s distributions) so that a recorded game
//! replays identically whatever version of `rand` the workspace uses.

use rand_core::Rng;
use serde::{Deserialize, Serialize};
use std::fmt;

/// One face of a die. A Joker appears only on the 13-sided dice of a Jokers
/// game (two each of One to Six, one Joker).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Face {
    /// One spot; face value 10.
    One = 1,
    /// Two spots.
    Two = 2,
    /// Three spots.
    Three = 3,
    /// Four spots.
    Four = 4,
    /// Five spots.
    Five = 5,
    /// Six spots.
    Six = 6,
    /// The Joker (a big zero); face value 30.
    Joker = 7,
}

impl Face {
    /// Every face in order, One to Joker.
    pub const ALL: [Face; 7] = [
        Face::One,
        Face::Two,
        Face::Three,
        Face::Four,
        Face::Five,
        Face::Six,
        Face::Joker,
    ];

    /// The face from its number (1 to 6, 7 for the Joker).
    pub fn from_number(n: u8) -> Option<Face> {
        Face::ALL.get(usize::from(n).wrapping_sub(1)).copied()
    }

    /// 1 to 6, and 7 for the Joker: the index used by count arrays.
    pub fn number(self) -> u8 {
        self as u8
    }

    /// Index into a `[u8; 8]` count array (1 to 7).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The man page's "face value": ten for a One, thirty for a Joker, the
    /// spots otherwise. N of a kind is worth face value times 100, 200, 300.
    pub fn face_value(self) -> u32 {
        match self {
            Face::One => 10,
            Face::Joker => 30,
            f => u32::from(f.number()),
        }
    }

    /// One character for screens and logs: `1`..`6`, `J` for the Joker.
    pub fn symbol(self) -> char {
        match self {
            Face::Joker => 'J',
            f => char::from(b'0' + f.number()),
        }
    }

    /// Rolls one die: six-sided, or the 13-sided Jokers die.
    pub fn roll<R: Rng + ?Sized>(rng: &mut R, jokers: bool) -> Face {
        if jokers {
            // Thirteen sides: two each of One..Six, then a single Joker.
            let x = uniform(rng, 13) as u8;
            if x == 12 {
                Face::Joker
            } else {
                Face::ALL[usize::from(x / 2)]
            }
        } else {
            Face::ALL[uniform(rng, 6) as usize]
        }
    }
}

impl fmt::Display for Face {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Face::One => "One",
            Face::Two => "Two",
            Face::Three => "Three",
            Face::Four => "Four",
            Face::Five => "Five",
            Face::Six => "Six",
            Face::Joker => "Joker",
        };
        f.write_str(name)
    }
}

/// A uniform integer in `0..n` by rejection sampling (unbiased, portable).
pub fn uniform<R: Rng + ?Sized>(rng: &mut R, n: u32) -> u32 {
    debug_assert!(n > 0);
    let n64 = u64::from(n.max(1));
    let limit = (1u64 << 32) / n64 * n64;
    loop {
        let x = u64::from(rng.next_u32());
        if x < limit {
            return (x % n64) as u32;
        }
    }
}

/// A set of the five dice positions (bit `i` = die `i`, `0..5`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DiceMask(pub u8);

impl DiceMask {
    /// No dice.
    pub const EMPTY: DiceMask = DiceMask(0);
    /// All five dice.
    pub const ALL: DiceMask = DiceMask(0b1_1111);

    /// The mask holding exactly the listed positions (positions >= 5 ignored).
    pub fn of(positions: &[usize]) -> DiceMask {
        DiceMask(
            positions
                .iter()
                .filter(|&&p| p < 5)
                .fold(0u8, |m, &p| m | (1 << p)),
        )
    }

    /// Whether position `i` is in the set.
    pub fn contains(self, i: usize) -> bool {
        i < 5 && self.0 & (1 << i) != 0
    }

    /// The set with position `i` toggled.
    pub fn toggled(self, i: usize) -> DiceMask {
        if i < 5 {
            DiceMask(self.0 ^ (1 << i))
        } else {
            self
        }
    }

    /// Number of dice in the set.
    pub fn len(self) -> usize {
        (self.0 & 0b1_1111).count_ones() as usize
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 & 0b1_1111 == 0
    }

    /// Whether every die of `self` is in `other`.
    pub fn is_subset_of(self, other: DiceMask) -> bool {
        self.0 & !other.0 == 0
    }

    /// Positions in the set, in order.
    pub fn positions(self) -> impl Iterator<Item = usize> {
        (0..5).filter(move |&i| self.contains(i))
    }

    /// Every non-empty subset of `self`.
    pub fn subsets(self) -> impl Iterator<Item = DiceMask> {
        let full = self.0 & 0b1_1111;
        (1..=full).filter(move |s| s & !full == 0).map(DiceMask)
    }
}

impl fmt::Display for DiceMask {
    /// Shown as five characters, `x` for a die in the set: `x.x..`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for i in 0..5 {
            f.write_str(if self.contains(i) { "x" } else { "." })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha8Rng;
    use rand_core::SeedableRng;

    #[test]
    fn six_sided_dice_are_fair_enough() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut counts = [0u32; 8];
        for _ in 0..60_000 {
            counts[Face::roll(&mut rng, false).index()] += 1;
        }
        assert_eq!(counts[Face::Joker.index()], 0);
        for c in &counts[1..=6] {
            assert!((9_300..10_700).contains(c), "{counts:?}");
        }
    }

    #[test]
    fn joker_dice_have_thirteen_sides() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let mut counts = [0u32; 8];
        for _ in 0..130_000 {
            counts[Face::roll(&mut rng, true).index()] += 1;
        }
        assert!((9_300..10_700).contains(&counts[7]), "{counts:?}");
        for c in &counts[1..=6] {
            assert!((19_000..21_000).contains(c), "{counts:?}");
        }
    }

    #[test]
    fn masks() {
        let m = DiceMask::of(&[0, 2, 4]);
        assert_eq!(m.len(), 3);
        assert_eq!(m.to_string(), "x.x.x");
        assert_eq!(m.subsets().count(), 7);
        assert!(DiceMask::of(&[2]).is_subset_of(m));
        assert!(!DiceMask::of(&[1]).is_subset_of(m));
        assert_eq!(m.toggled(0), DiceMask::of(&[2, 4]));
        assert_eq!(Face::from_number(7), Some(Face::Joker));
        assert_eq!(Face::from_number(0), None);
        assert_eq!(Face::One.face_value(), 10);
    }
}
