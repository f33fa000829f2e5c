//! One side's cards on the table ([`Tableau`]) and what every decision asks
//! of it, cached when cards land: its [`SideStatus`] turned into the bit sets
//! of the cards it may play and the hazards it may be attacked with.

use super::State;
use super::legality::LANE;
use crate::card::{Card, CardCounts, Kind, Safety, SafetySet};
use crate::pile::Pile;
use crate::rules::{MAX_TEAMS, Rules};

/// One side's cards on the table for the current hand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tableau {
    /// Battle pile, bottom first (hazards and remedies other than speed).
    pub battle: Pile<48>,
    /// Speed pile, bottom first (Speed Limit and End of Limit).
    pub speed: Pile<12>,
    /// Distance cards played, counted per kind (25, 50, 75, 100, 200).
    pub distance: [u8; 5],
    /// Miles travelled this hand.
    pub miles: u16,
    /// Safeties in play.
    pub safeties: SafetySet,
    /// Safeties played as coups fourrés.
    pub coups: SafetySet,
    /// What every decision asks of this side, kept up to date by
    /// [`Tableau::refresh`] whenever a card lands here.
    pub(super) fast: FastStatus,
}

/// The cached answers of the hot path (see [`State::turn_choices`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(super) struct FastStatus {
    /// Cards this side may play on itself now (distance included, for the
    /// current target), if held.
    pub(super) own: u32,
    /// Hazards that may be played on this side.
    pub(super) attack: u32,
}

impl Tableau {
    /// Whether a hazard on this side still counts (its safety is not in play).
    #[inline]
    pub fn counts(&self, hazard: Card) -> bool {
        match hazard.safety() {
            Some(s) => hazard.kind() == Kind::Hazard && !self.safeties.has(s),
            None => false,
        }
    }

    /// The hazard on top of the battle pile that still stops the side.
    #[inline]
    pub fn stopping_hazard(&self) -> Option<Card> {
        self.battle.top().filter(|&c| self.counts(c))
    }

    /// Whether the side may play distance (ignoring speed): a Go on top, or
    /// Right of Way with no counting hazard, or (bsd decision 1) a hazard its
    /// safety cancelled.
    #[inline]
    pub fn can_go(&self, rules: &Rules) -> bool {
        let row = self.safeties.has(Safety::RightOfWay);
        match self.battle.top() {
            Some(Card::Go) => true,
            Some(top) if top.kind() == Kind::Hazard => {
                !self.counts(top) && (row || rules.safety_lets_go)
            }
            _ => row,
        }
    }

    /// Whether a Speed Limit holds the side to 50 miles.
    #[inline]
    pub fn limited(&self) -> bool {
        self.speed.top() == Some(Card::SpeedLimit) && !self.safeties.has(Safety::RightOfWay)
    }

    /// Number of 200s played this hand.
    #[inline]
    pub fn two_hundreds(&self) -> u8 {
        self.distance[4]
    }

    /// The distance cards played, smallest first.
    pub fn distance_cards(&self) -> impl Iterator<Item = Card> + '_ {
        Card::DISTANCES
            .into_iter()
            .zip(self.distance)
            .flat_map(|(c, n)| std::iter::repeat_n(c, n as usize))
    }

    /// Every card of this tableau, for accounting.
    pub fn count_into(&self, counts: &mut CardCounts) {
        counts.add_all(self.battle.as_slice().iter().copied());
        counts.add_all(self.speed.as_slice().iter().copied());
        // Counted by kind, not card by card: the computer players count
        // cards at every decision of their play-outs.
        for (c, n) in Card::DISTANCES.into_iter().zip(self.distance) {
            let count = &mut counts.0[c as usize];
            *count = count.saturating_add(n);
        }
        counts.add_all(self.safeties.cards());
    }
}

/// What the rules need to know of a side, computed once per decision.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SideStatus {
    pub(super) can_go: bool,
    pub(super) limited: bool,
    /// The counting hazard on top of the battle pile.
    pub(super) stopping: Option<Card>,
    pub(super) top: Option<Card>,
    pub(super) safeties: SafetySet,
    pub(super) miles: u16,
    pub(super) two_hundreds: u8,
}

impl SideStatus {
    /// The card kinds this side may play on itself (bit per [`Card`]):
    /// [`card_rule`](super::legality::card_rule) as a bit set.
    #[inline(always)]
    fn own_playable(&self, target: u16) -> u32 {
        let mut m = SAFETY_BITS;
        if self.can_go {
            let room = target.saturating_sub(self.miles);
            if room >= 25 {
                m |= bit(Card::D25);
            }
            if room >= 50 {
                m |= bit(Card::D50);
            }
            if !self.limited {
                if room >= 75 {
                    m |= bit(Card::D75);
                }
                if room >= 100 {
                    m |= bit(Card::D100);
                }
                if room >= 200 && self.two_hundreds < 2 {
                    m |= bit(Card::D200);
                }
            }
        } else {
            match self.stopping {
                None | Some(Card::Stop) => m |= bit(Card::Go),
                Some(h) => {
                    if let Some(r) = h.remedy() {
                        m |= bit(r);
                    }
                }
            }
        }
        if self.limited {
            m |= bit(Card::EndOfLimit);
        }
        m
    }

    /// The hazards that may be played on this side (bit per [`Card`]).
    #[inline(always)]
    fn attackable(&self, stacking: bool) -> u32 {
        let mut m = 0;
        if !self.safeties.has(Safety::RightOfWay) && !self.limited {
            m |= bit(Card::SpeedLimit);
        }
        if self.can_go || (stacking && self.stopping.is_some()) {
            for (h, s) in [
                (Card::OutOfGas, Safety::ExtraTank),
                (Card::FlatTire, Safety::PunctureProof),
                (Card::Accident, Safety::DrivingAce),
                (Card::Stop, Safety::RightOfWay),
            ] {
                if !self.safeties.has(s) {
                    m |= bit(h);
                }
            }
        }
        m
    }
}

impl Tableau {
    /// Recomputes the cached status after cards landed on this side (see
    /// [`State::refresh_side`], which also keeps the attack lanes).
    fn refresh(&mut self, rules: &Rules, target: u16) {
        let st = self.status(rules);
        self.fast = FastStatus {
            own: st.own_playable(target),
            attack: st.attackable(rules.stacking),
        };
    }

    /// After a distance card: only the distance that still fits changes.
    #[inline]
    pub(super) fn refresh_distance(&mut self, target: u16) {
        let room = target.saturating_sub(self.miles);
        let fits = DISTANCE_BY_ROOM[usize::from(room / 25).min(DISTANCE_BY_ROOM.len() - 1)];
        let twos = if self.two_hundreds() >= 2 {
            !bit(Card::D200)
        } else {
            u32::MAX
        };
        self.fast.own &= !DISTANCE_BITS | (fits & twos);
    }

    #[inline(always)]
    pub(crate) fn status(&self, rules: &Rules) -> SideStatus {
        SideStatus {
            can_go: self.can_go(rules),
            limited: self.limited(),
            stopping: self.stopping_hazard(),
            top: self.battle.top(),
            safeties: self.safeties,
            miles: self.miles,
            two_hundreds: self.two_hundreds(),
        }
    }
}

impl State {
    /// Recomputes every side's cached status (after building a position or
    /// changing the target).
    /// Also recounts the public cards ([`State::public_counts`]) from the
    /// tableaux and the discards.
    pub(crate) fn refresh_all(&mut self) {
        for team in 0..MAX_TEAMS as u8 {
            self.refresh_side(team);
        }
        let mut public = *self.discards.counts();
        for t in &self.tableaux[..usize::from(self.rules.teams).min(MAX_TEAMS)] {
            t.count_into(&mut public);
        }
        self.public = public;
    }

    /// Whether a side could complete the trip with one distance card now:
    /// it may go, and a card of exactly the miles left may be played (not
    /// above 50 under a Speed Limit, not a third 200); never for a side
    /// not at the table. Read from the status cached when cards landed,
    /// as the computer players ask it at every decision of their
    /// play-outs.
    #[inline]
    pub fn one_card_from_end(&self, team: u8) -> bool {
        let Some(t) = self.tableaux.get(usize::from(team)) else {
            return false;
        };
        let room = self.target.saturating_sub(t.miles);
        let finish = match room {
            25 => bit(Card::D25),
            50 => bit(Card::D50),
            75 => bit(Card::D75),
            100 => bit(Card::D100),
            200 => bit(Card::D200),
            _ => 0,
        };
        team < self.rules.teams && t.fast.own & finish != 0
    }

    /// Recomputes a side's cached status after cards landed on it.
    #[inline]
    pub(crate) fn refresh_side(&mut self, team: u8) {
        let t = &mut self.tableaux[team as usize];
        t.refresh(&self.rules, self.target);
        let shift = 5 * u32::from(team);
        let lane = if team < self.rules.teams {
            u64::from(t.fast.attack >> Card::OutOfGas as u32)
        } else {
            0
        };
        self.attack_lanes = (self.attack_lanes & !(LANE << shift)) | lane << shift;
    }
}

/// Bits of the four safeties in a card-kind bit set.
pub(super) const SAFETY_BITS: u32 =
    bit(Card::ExtraTank) | bit(Card::PunctureProof) | bit(Card::DrivingAce) | bit(Card::RightOfWay);

pub(super) const fn bit(c: Card) -> u32 {
    1 << c as u32
}

/// Bits of the five distance cards.
const DISTANCE_BITS: u32 =
    bit(Card::D25) | bit(Card::D50) | bit(Card::D75) | bit(Card::D100) | bit(Card::D200);

/// Distance cards that fit in the room left (index: miles left / 25).
const DISTANCE_BY_ROOM: [u32; 41] = {
    let mut t = [0u32; 41];
    let mut i = 0;
    while i < 41 {
        let room = i as u16 * 25;
        let mut m = 0;
        let mut k = 0;
        while k < 5 {
            let c = Card::ALL[k];
            if c.miles() <= room {
                m |= bit(c);
            }
            k += 1;
        }
        t[i] = m;
        i += 1;
    }
    t
};
