//! Cards: the nineteen kinds of Mille Bornes card, their protocol ids, names,
//! and how hazards, remedies and safeties pair up.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Number of distinct card kinds.
pub const KINDS: usize = 19;

/// One kind of card. The discriminant order is the card-id order of the bot
/// protocol (distance, hazards, remedies, safeties), which is also the order
/// in which `legal` answers list actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Card {
    /// 25 miles.
    D25 = 0,
    /// 50 miles.
    D50,
    /// 75 miles.
    D75,
    /// 100 miles.
    D100,
    /// 200 miles.
    D200,
    /// Hazard: Out of Gas.
    OutOfGas,
    /// Hazard: Flat Tire.
    FlatTire,
    /// Hazard: Accident.
    Accident,
    /// Hazard: Speed Limit (played on the speed pile).
    SpeedLimit,
    /// Hazard: Stop.
    Stop,
    /// Remedy for Out of Gas.
    Gasoline,
    /// Remedy for Flat Tire.
    SpareTire,
    /// Remedy for Accident.
    Repairs,
    /// Remedy for Speed Limit.
    EndOfLimit,
    /// Remedy for Stop, and what lets a side roll.
    Go,
    /// Safety against Out of Gas.
    ExtraTank,
    /// Safety against Flat Tire.
    PunctureProof,
    /// Safety against Accident.
    DrivingAce,
    /// Safety against Stop and Speed Limit; a permanent Go.
    RightOfWay,
}

/// The four families of cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Mileage.
    Distance,
    /// Played on an opponent.
    Hazard,
    /// Repairs a hazard.
    Remedy,
    /// Permanent protection.
    Safety,
}

/// Which of the four safeties, as a bit index in a [`SafetySet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Safety {
    /// Extra Tank.
    ExtraTank = 0,
    /// Puncture Proof.
    PunctureProof = 1,
    /// Driving Ace.
    DrivingAce = 2,
    /// Right of Way.
    RightOfWay = 3,
}

impl Card {
    /// Every card kind in id order.
    pub const ALL: [Card; KINDS] = [
        Card::D25,
        Card::D50,
        Card::D75,
        Card::D100,
        Card::D200,
        Card::OutOfGas,
        Card::FlatTire,
        Card::Accident,
        Card::SpeedLimit,
        Card::Stop,
        Card::Gasoline,
        Card::SpareTire,
        Card::Repairs,
        Card::EndOfLimit,
        Card::Go,
        Card::ExtraTank,
        Card::PunctureProof,
        Card::DrivingAce,
        Card::RightOfWay,
    ];

    /// The five distance cards, shortest first: the order of a tableau's
    /// distance counts.
    pub const DISTANCES: [Card; 5] = [Card::D25, Card::D50, Card::D75, Card::D100, Card::D200];

    /// The four safeties in [`Safety`] bit order.
    pub const SAFETIES: [Card; 4] = [
        Card::ExtraTank,
        Card::PunctureProof,
        Card::DrivingAce,
        Card::RightOfWay,
    ];

    /// Index of this kind in `0..KINDS`.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The card kind with this index, if any.
    pub const fn from_index(i: usize) -> Option<Card> {
        if i < KINDS { Some(Card::ALL[i]) } else { None }
    }

    /// The family of this card.
    #[inline]
    pub const fn kind(self) -> Kind {
        // A table rather than range tests: the card is random in play.
        const KINDS: [Kind; 19] = {
            let mut t = [Kind::Safety; 19];
            let mut i = 0;
            while i < 15 {
                t[i] = match i {
                    0..=4 => Kind::Distance,
                    5..=9 => Kind::Hazard,
                    _ => Kind::Remedy,
                };
                i += 1;
            }
            t
        };
        KINDS[self as usize]
    }

    /// Miles for a distance card, 0 for the others.
    #[inline]
    pub const fn miles(self) -> u16 {
        match self {
            Card::D25 => 25,
            Card::D50 => 50,
            Card::D75 => 75,
            Card::D100 => 100,
            Card::D200 => 200,
            _ => 0,
        }
    }

    /// True for the hazards that go on the battle pile (not Speed Limit).
    #[inline]
    pub const fn is_battle_hazard(self) -> bool {
        // A bit test, no branch: the computer players count these over
        // whole piles at every decision of their play-outs.
        const BATTLE: u32 = 1 << Card::OutOfGas as u32
            | 1 << Card::FlatTire as u32
            | 1 << Card::Accident as u32
            | 1 << Card::Stop as u32;
        BATTLE >> (self as u32) & 1 != 0
    }

    /// The remedy that repairs this hazard.
    pub const fn remedy(self) -> Option<Card> {
        match self {
            Card::OutOfGas => Some(Card::Gasoline),
            Card::FlatTire => Some(Card::SpareTire),
            Card::Accident => Some(Card::Repairs),
            Card::SpeedLimit => Some(Card::EndOfLimit),
            Card::Stop => Some(Card::Go),
            _ => None,
        }
    }

    /// The hazard this remedy repairs.
    pub const fn remedied_hazard(self) -> Option<Card> {
        match self {
            Card::Gasoline => Some(Card::OutOfGas),
            Card::SpareTire => Some(Card::FlatTire),
            Card::Repairs => Some(Card::Accident),
            Card::EndOfLimit => Some(Card::SpeedLimit),
            Card::Go => Some(Card::Stop),
            _ => None,
        }
    }

    /// The safety that protects against this hazard (or that this remedy's
    /// hazard is protected by).
    pub const fn safety(self) -> Option<Safety> {
        match self {
            Card::OutOfGas | Card::Gasoline => Some(Safety::ExtraTank),
            Card::FlatTire | Card::SpareTire => Some(Safety::PunctureProof),
            Card::Accident | Card::Repairs => Some(Safety::DrivingAce),
            Card::SpeedLimit | Card::Stop | Card::EndOfLimit | Card::Go => Some(Safety::RightOfWay),
            Card::ExtraTank => Some(Safety::ExtraTank),
            Card::PunctureProof => Some(Safety::PunctureProof),
            Card::DrivingAce => Some(Safety::DrivingAce),
            Card::RightOfWay => Some(Safety::RightOfWay),
            _ => None,
        }
    }

    /// The protocol id (`"25"`, `"out_of_gas"`, ...).
    pub const fn id(self) -> &'static str {
        match self {
            Card::D25 => "25",
            Card::D50 => "50",
            Card::D75 => "75",
            Card::D100 => "100",
            Card::D200 => "200",
            Card::OutOfGas => "out_of_gas",
            Card::FlatTire => "flat_tire",
            Card::Accident => "accident",
            Card::SpeedLimit => "speed_limit",
            Card::Stop => "stop",
            Card::Gasoline => "gasoline",
            Card::SpareTire => "spare_tire",
            Card::Repairs => "repairs",
            Card::EndOfLimit => "end_of_limit",
            Card::Go => "go",
            Card::ExtraTank => "extra_tank",
            Card::PunctureProof => "puncture_proof",
            Card::DrivingAce => "driving_ace",
            Card::RightOfWay => "right_of_way",
        }
    }

    /// The card's name as players say it.
    pub const fn name(self) -> &'static str {
        match self {
            Card::D25 => "25",
            Card::D50 => "50",
            Card::D75 => "75",
            Card::D100 => "100",
            Card::D200 => "200",
            Card::OutOfGas => "Out of Gas",
            Card::FlatTire => "Flat Tire",
            Card::Accident => "Accident",
            Card::SpeedLimit => "Speed Limit",
            Card::Stop => "Stop",
            Card::Gasoline => "Gasoline",
            Card::SpareTire => "Spare Tire",
            Card::Repairs => "Repairs",
            Card::EndOfLimit => "End of Limit",
            Card::Go => "Go",
            Card::ExtraTank => "Extra Tank",
            Card::PunctureProof => "Puncture Proof",
            Card::DrivingAce => "Driving Ace",
            Card::RightOfWay => "Right of Way",
        }
    }
}

impl Safety {
    /// The safety card.
    pub const fn card(self) -> Card {
        Card::SAFETIES[self as usize]
    }
    /// Bit of this safety in a [`SafetySet`].
    #[inline]
    pub const fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// A set of safeties as a bit mask (bit order of [`Safety`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SafetySet(pub u8);

impl SafetySet {
    /// Whether the set holds this safety.
    #[inline]
    pub const fn has(self, s: Safety) -> bool {
        self.0 & s.bit() != 0
    }
    /// Adds a safety.
    #[inline]
    pub fn insert(&mut self, s: Safety) {
        self.0 |= s.bit();
    }
    /// Number of safeties in the set.
    #[inline]
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }
    /// True when empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The safety cards in the set, in id order.
    pub fn cards(self) -> impl Iterator<Item = Card> {
        Card::SAFETIES
            .into_iter()
            .enumerate()
            .filter(move |(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, c)| c)
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A card id that is not one of the protocol's nineteen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown card id {0:?} (expected one of 25, 50, 75, 100, 200, out_of_gas, flat_tire, accident, speed_limit, stop, gasoline, spare_tire, repairs, end_of_limit, go, extra_tank, puncture_proof, driving_ace, right_of_way)"
)]
pub struct UnknownCard(pub String);

impl FromStr for Card {
    type Err = UnknownCard;
    fn from_str(s: &str) -> Result<Card, UnknownCard> {
        Card::ALL
            .into_iter()
            .find(|c| c.id() == s)
            .ok_or_else(|| UnknownCard(s.to_string()))
    }
}

impl Serialize for Card {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// A count of cards per kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CardCounts(pub [u8; KINDS]);

impl CardCounts {
    /// How many of this card.
    #[inline]
    pub const fn get(&self, c: Card) -> u8 {
        self.0[c as usize]
    }
    /// Adds one card. Saturates: a view from the network may claim more
    /// copies than a count holds.
    #[inline]
    pub fn add(&mut self, c: Card) {
        let n = &mut self.0[c as usize];
        *n = n.saturating_add(1);
    }
    /// Total number of cards.
    #[inline]
    pub fn total(&self) -> u32 {
        // Eight counts at a time as the bytes of a word (the computer
        // players ask at every decision of their play-outs): bytes added
        // in pairs into 16-bit lanes (at most 510 each), then the four
        // lanes summed in the top one (at most 2040: no lane overflows).
        const LOW_BYTES: u64 = 0x00ff_00ff_00ff_00ff;
        let mut bytes = [0u8; 24];
        bytes[..KINDS].copy_from_slice(&self.0);
        let mut total = 0;
        for chunk in bytes.chunks_exact(8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            let x = u64::from_le_bytes(word);
            let pairs = (x & LOW_BYTES) + ((x >> 8) & LOW_BYTES);
            total += (pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48) as u32;
        }
        total
    }
    /// Adds every card of another count (saturating, as [`CardCounts::add`]).
    #[inline]
    pub fn add_counts(&mut self, other: &CardCounts) {
        for (n, &m) in self.0.iter_mut().zip(&other.0) {
            *n = n.saturating_add(m);
        }
    }
    /// Adds every card of an iterator.
    pub fn add_all(&mut self, cards: impl IntoIterator<Item = Card>) {
        for c in cards {
            self.add(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit test picks exactly the four hazards of the battle pile.
    #[test]
    fn battle_hazards_are_the_four_stopping_hazards() {
        let battle: Vec<Card> = Card::ALL
            .into_iter()
            .filter(|c| c.is_battle_hazard())
            .collect();
        assert_eq!(
            battle,
            [Card::OutOfGas, Card::FlatTire, Card::Accident, Card::Stop]
        );
    }

    /// The word-wise total equals a plain sum, full counts included.
    #[test]
    fn total_counts_every_card() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for round in 0..2000 {
            let mut counts = CardCounts::default();
            for n in counts.0.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Small counts, as in play, and any byte at all.
                *n = if round % 2 == 0 {
                    (x % 15) as u8
                } else {
                    x as u8
                };
            }
            let plain: u32 = counts.0.iter().map(|&n| u32::from(n)).sum();
            assert_eq!(counts.total(), plain, "{counts:?}");
        }
        assert_eq!(CardCounts([u8::MAX; KINDS]).total(), 255 * KINDS as u32);
    }

    #[test]
    fn ids_round_trip_and_follow_protocol_order() {
        for (i, c) in Card::ALL.into_iter().enumerate() {
            assert_eq!(c.index(), i);
            assert_eq!(c.id().parse::<Card>(), Ok(c));
            assert_eq!(Card::from_index(i), Some(c));
        }
        assert!("fuel".parse::<Card>().is_err());
    }

    #[test]
    fn hazards_remedies_and_safeties_pair_up() {
        for h in [
            Card::OutOfGas,
            Card::FlatTire,
            Card::Accident,
            Card::SpeedLimit,
            Card::Stop,
        ] {
            let r = h.remedy().expect("hazard has remedy");
            assert_eq!(r.remedied_hazard(), Some(h));
            assert_eq!(h.safety(), r.safety());
        }
        assert_eq!(Card::Stop.safety(), Some(Safety::RightOfWay));
        assert_eq!(Card::SpeedLimit.safety(), Some(Safety::RightOfWay));
        assert_eq!(Safety::DrivingAce.card(), Card::DrivingAce);
    }
}
